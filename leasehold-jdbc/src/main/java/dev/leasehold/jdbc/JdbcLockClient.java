package dev.leasehold.jdbc;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.engine.ReadWriteLockPair;
import dev.leasehold.spi.LeaderRecords;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Locks kept in a PostgreSQL lease table: see {@link JdbcLocks} for the guarantees, the table and
 * how to create one. Offers the mutex ({@link #lock}) and the read-write lock
 * ({@link #readWriteLock}); every lease of a name, of either kind, draws its token from one sequence.
 */
public final class JdbcLockClient implements LockClient, LeaderRecords.Source {

    private final LeaseEngine engine;
    private final JdbcLockProtocol mutex;
    private final JdbcLockProtocol readers;
    private final JdbcLockProtocol writers;
    private final ReleaseListener listener;
    private final ExecutorService executor;
    private final String database;
    private final JdbcLeaderRecords leaderRecords;
    private volatile boolean closed;

    JdbcLockClient(LeaseEngine engine, JdbcLockProtocol.Backend backend) {
        this.engine = engine;
        this.listener = backend.listener();
        this.executor = backend.executor();
        this.database = backend.database();
        this.mutex = new JdbcLockProtocol(backend, LeaseKind.MUTEX);
        this.readers = new JdbcLockProtocol(backend, LeaseKind.READ);
        this.writers = new JdbcLockProtocol(backend, LeaseKind.WRITE);
        this.leaderRecords = new JdbcLeaderRecords(backend);
    }

    /**
     * Leader records of {@link #leadership elections}: a row per election in {@code <table>_leader}
     * (created on first use), fenced by the term's token, expiring in database time with the term.
     */
    @Override
    public LeaderRecords leaderRecords() {
        return leaderRecords;
    }

    @Override
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    /**
     * The exclusive lock {@code name}, at most 2048 bytes in UTF-8 (a primary key
     * entry; names of other scripts than Latin may reach it before 1024 characters), without NUL. Its lease is a row of the lease table; it also excludes the
     * readers and the writer of {@link #readWriteLock} of the same name.
     */
    @Override
    public DistributedLock lock(String name, LockOptions options) {
        return engine.lock(IndexedText.name(name), options, mutex);
    }

    /**
     * The read-write lock {@code name}: many readers or one writer. A blocked writer registers a
     * waiting row (it expires a few re-check periods after its last attempt), and new readers yield
     * to it, so a stream of readers never starves a writer. See {@link ReadWriteLockPair} for the
     * acquires refused because a thread would wait for itself.
     */
    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions options) {
        return ReadWriteLockPair.of(engine, IndexedText.name(name), options, readers, writers);
    }

    @Override
    public String describe() {
        return database;
    }

    /** Leases this client holds now. */
    public int heldLeases() {
        return engine.heldLeases();
    }

    /** Release subscriptions of waiting acquisitions open now. */
    public int activeSubscriptions() {
        return listener.subscriptions();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        engine.close(); // releases the leases still held, through the executor
        listener.close();
        executor.shutdown();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "JdbcLockClient[" + database + "]";
    }
}
