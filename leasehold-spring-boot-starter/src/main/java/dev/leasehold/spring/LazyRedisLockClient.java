package dev.leasehold.spring;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipOptions;
import dev.leasehold.LockClient;
import dev.leasehold.LockClientClosedException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.MultiLock;
import dev.leasehold.redis.RedisLockClient;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The {@link LockClient} bean of {@code leasehold.redis.connect-on-startup=false}: it connects at its
 * first use instead of at startup, so the application starts while Redis is down. Every method that
 * makes a lock ({@code lock}, {@code fairLock}, {@code readWriteLock}, {@code semaphore},
 * {@code multiLock}, {@code leadership}) and {@link #connected()} connect first if no connection was
 * made yet; one that cannot connect throws the {@link LockUnavailableException} of the attempt, which
 * names the server, and the next call tries again. Callers that come while an attempt is under way
 * wait for that one attempt (as long as it takes; each of its steps is bounded by the operation
 * timeout) and share its outcome, so a dead server costs one attempt at a time, not one per caller.
 * Once connected, every call goes to that {@link RedisLockClient}, which follows reconnects itself.
 * After {@link #close()}, every call, including one already waiting for an attempt, throws
 * {@link LockClientClosedException}. Thread-safe.
 */
public final class LazyRedisLockClient implements LockClient {

    private final Supplier<RedisLockClient> connect;
    private final String configuredBy;
    private final AtomicReference<CompletableFuture<RedisLockClient>> attempt = new AtomicReference<>();
    private volatile boolean closed;

    /**
     * @param connect      connects, or throws {@link LockUnavailableException}
     * @param configuredBy the property that names the server, for {@link #describe()} before connecting
     */
    LazyRedisLockClient(Supplier<RedisLockClient> connect, String configuredBy) {
        this.connect = connect;
        this.configuredBy = configuredBy;
    }

    /**
     * The connected client, for what only Redis offers ({@code inspect}, {@code list}, {@code breakLock}):
     * connects first when no connection was made yet.
     *
     * @throws LockUnavailableException  if the server cannot be reached now
     * @throws LockClientClosedException if this client was closed
     */
    public RedisLockClient connected() {
        while (true) {
            if (closed) {
                throw new LockClientClosedException(describe());
            }
            CompletableFuture<RedisLockClient> current = attempt.get();
            if (current != null && !current.isCompletedExceptionally()) {
                return await(current);
            }
            CompletableFuture<RedisLockClient> mine = new CompletableFuture<>();
            if (attempt.compareAndSet(current, mine)) {
                if (closed) {
                    // close() may have read the attempt before this one was set: end it here, as close() would.
                    mine.completeExceptionally(new LockClientClosedException(describe()));
                    throw new LockClientClosedException(describe());
                }
                return connect(mine);
            }
        }
    }

    /** Whether a connection was made; false until the first use (or health check) reached the server. */
    public boolean isConnected() {
        CompletableFuture<RedisLockClient> current = attempt.get();
        return current != null && current.isDone() && !current.isCompletedExceptionally();
    }

    private RedisLockClient connect(CompletableFuture<RedisLockClient> mine) {
        RedisLockClient client;
        try {
            client = connect.get();
        } catch (RuntimeException | Error failed) {
            // An Error too (a class that failed to initialise): left pending, the attempt would hold every later caller.
            mine.completeExceptionally(failed);
            throw failed;
        }
        if (!mine.complete(client) || closed) {
            // close() ran while this connected and ended the attempt, or may not have seen the client: close it here.
            client.close();
            throw new LockClientClosedException(describe());
        }
        return client;
    }

    /** Another caller's attempt: its client, or its failure thrown again here; closed while waiting, the close. */
    private RedisLockClient await(CompletableFuture<RedisLockClient> attempt) {
        RedisLockClient client;
        try {
            client = attempt.join();
        } catch (CompletionException failed) {
            if (failed.getCause() instanceof LockClientClosedException) {
                throw new LockClientClosedException(describe()); // thrown in this caller's thread, not close()'s
            }
            if (failed.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw failed;
        }
        if (closed) {
            // The attempt completed just before close() ended it: its client is being closed, never handed out.
            throw new LockClientClosedException(describe());
        }
        return client;
    }

    @Override
    public DistributedLock lock(String name) {
        return connected().lock(name);
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        return connected().lock(name, options);
    }

    @Override
    public DistributedLock fairLock(String name, LockOptions options) {
        return connected().fairLock(name, options);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions options) {
        return connected().readWriteLock(name, options);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
        return connected().semaphore(name, permits, options);
    }

    @Override
    public MultiLock multiLock(String... names) {
        return connected().multiLock(names);
    }

    @Override
    public Leadership leadership(String name, LeadershipOptions options) {
        return connected().leadership(name, options);
    }

    /** The connected client's description, or, before the first connection, the property that names the server. */
    @Override
    public String describe() {
        return isConnected() ? attempt.get().join().describe()
                : "Redis of " + configuredBy + " (not connected yet: leasehold.redis.connect-on-startup=false)";
    }

    /**
     * Closes the connected client, if any; a connection under way is closed when it completes, and the
     * callers waiting for it get {@link LockClientClosedException} now. Idempotent.
     */
    @Override
    public void close() {
        closed = true; // before reading the attempt: an attempt set after this read sees closed (connected())
        CompletableFuture<RedisLockClient> current = attempt.get();
        if (current != null && !current.completeExceptionally(new LockClientClosedException(describe()))
                && !current.isCompletedExceptionally()) {
            current.join().close();
        }
    }

    @Override
    public String toString() {
        return "LazyRedisLockClient[" + describe() + "]";
    }
}
