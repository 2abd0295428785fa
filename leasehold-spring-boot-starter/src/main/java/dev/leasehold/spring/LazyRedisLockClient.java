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
 * wait for that one attempt (at most the operation timeout) and share its outcome, so a dead server
 * costs one attempt at a time, not one per caller. Once connected, every call goes to that
 * {@link RedisLockClient}, which follows reconnects itself. Thread-safe.
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
        mine.complete(client);
        if (closed) {
            // close() ran while this connected and may not have seen the client: close it here.
            client.close();
            throw new LockClientClosedException(describe());
        }
        return client;
    }

    /** Another caller's attempt: its client, or its failure thrown again here. */
    private static RedisLockClient await(CompletableFuture<RedisLockClient> attempt) {
        try {
            return attempt.join();
        } catch (CompletionException failed) {
            if (failed.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw failed;
        }
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

    /** Closes the connected client, if any; a connection under way is closed when it completes. Idempotent. */
    @Override
    public void close() {
        closed = true;
        if (isConnected()) {
            attempt.get().join().close();
        }
    }

    @Override
    public String toString() {
        return "LazyRedisLockClient[" + describe() + "]";
    }
}
