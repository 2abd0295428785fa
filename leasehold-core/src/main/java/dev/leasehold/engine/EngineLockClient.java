package dev.leasehold.engine;

import dev.leasehold.BrokenLock;
import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.LockClient;
import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.Backend;
import dev.leasehold.spi.Inspector;
import dev.leasehold.spi.LeaderRecords;

import java.util.List;
import java.util.Optional;

/**
 * The one {@link LockClient}: every kind of lock, semaphores, multi-locks, leader election,
 * diagnostics and {@link #close()}, written once over a {@link Backend}. A backend's public client
 * type ({@code RedisLockClient}, {@code ZooKeeperLockClient}, ...) extends this class with what only
 * that backend has.
 *
 * <p>Thread-safe. Locks are cheap views: creating one talks to no server (a semaphore reads its
 * permits once, to refuse a number other clients disagree with).
 */
public class EngineLockClient implements LockClient, LeaderRecords.Source {

    private final Backend backend;
    private final LeaseEngine engine;
    private volatile boolean closed;

    /**
     * A client over {@code backend}, whose leases an engine with {@code settings} manages. The client
     * owns the backend from now on: {@link #close()} closes it.
     */
    protected EngineLockClient(Backend backend, LeaseEngine.Settings settings) {
        this.backend = backend;
        this.engine = new LeaseEngine(settings, backend.describe());
    }

    @Override
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        return lockOf(LockKind.MUTEX, name, options);
    }

    @Override
    public DistributedLock fairLock(String name, LockOptions options) {
        return lockOf(LockKind.FAIR, name, options);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions options) {
        String key = backend.lockName(name);
        Args.lockOptions(options);
        return ReadWriteLockPair.of(engine, key, options, backend.protocol(LockKind.READ, options),
                backend.protocol(LockKind.WRITE, options));
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
        String key = backend.lockName(name);
        LockKind kind = LockKind.permits(permits);
        Args.lockOptions(options);
        EngineSemaphore semaphore = new EngineSemaphore(engine.lock(key, options, backend.protocol(kind, options)),
                permits, () -> {
                    engine.ensureOpen();
                    return backend.availablePermits(key, permits);
                });
        if (!backend.checksPermitsAtCreation()) {
            return semaphore;
        }
        try {
            semaphore.available();
        } catch (PermitsMismatchException mismatch) {
            throw new IllegalArgumentException(mismatch.getMessage(), mismatch);
        }
        return semaphore;
    }

    /**
     * The lock of {@code kind} named {@code name}; for a {@link LockKind.Permits}, the lock whose every
     * acquisition takes one permit of {@link #semaphore(String, int, LockOptions)}.
     */
    public DistributedLock lockOf(LockKind kind, String name, LockOptions options) {
        if (kind instanceof LockKind.Permits permits) {
            return ((EngineSemaphore) semaphore(name, permits.permits(), options)).lock();
        }
        String key = backend.lockName(name);
        Args.lockOptions(options);
        return engine.lock(key, options, backend.protocol(kind, options));
    }

    /**
     * One snapshot of the lock {@code name}, whatever kind holds it.
     *
     * @throws UnsupportedOperationException if the backend cannot inspect locks
     * @throws dev.leasehold.LockClientClosedException if this client is closed
     */
    public LockInfo inspect(String name) {
        String key = backend.lockName(name);
        return inspector("inspect").inspect(key);
    }

    /**
     * The locks held right now whose names match the glob {@code pattern}, by name.
     *
     * @throws IllegalArgumentException      if the pattern is null or empty
     * @throws UnsupportedOperationException if the backend cannot enumerate its locks
     */
    public List<LockInfo> list(String pattern) {
        return inspector("list").list(Args.pattern(pattern));
    }

    /**
     * Breaks the lock {@code name}: deletes its holders and advances its fence past every token issued,
     * recording who broke it and why. Empty if nobody held it.
     *
     * @throws IllegalArgumentException      if the reason is blank or too long
     * @throws UnsupportedOperationException if the backend cannot break locks
     */
    public Optional<BrokenLock> breakLock(String name, String reason) {
        String key = backend.lockName(name);
        return inspector("break").breakLock(key, reason);
    }

    private Inspector inspector(String what) {
        engine.ensureOpen();
        return backend.inspector().orElseThrow(() -> new UnsupportedOperationException(
                "'" + what + "' is not offered by " + backend.describe()));
    }

    @Override
    public LeaderRecords leaderRecords() {
        return backend.leaderRecords();
    }

    @Override
    public String describe() {
        return backend.describe();
    }

    /**
     * For a subclass's own reads of the backend: throws as every call on a closed client does.
     *
     * @throws dev.leasehold.LockClientClosedException if this client is closed
     */
    protected void ensureOpen() {
        engine.ensureOpen();
    }

    /** The backend under this client, for its public subclass. */
    protected Backend backend() {
        return backend;
    }

    /** Leases of this client that are held right now (not released, not lost). */
    public int heldLeases() {
        return engine.heldLeases();
    }

    /** Lock names on which this client has an acquisition queued, waiting or holding. */
    public int activeLockNames() {
        return engine.activeLockNames();
    }

    /** This client's acquisitions queued, waiting or holding on {@code name} (local queue length). */
    public int queuedAcquisitions(String name) {
        return engine.queuedAcquisitions(backend.lockName(name));
    }

    /** Renewal ticks and waiter timers pending on this client's scheduler. */
    public int pendingTimers() {
        return engine.pendingTimers();
    }

    /**
     * Releases every lease still held (each holder's {@link dev.leasehold.Lease#lost()} completes),
     * then closes the backend's connections. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        engine.close();
        backend.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + backend.describe() + "]";
    }
}
