package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.ReentrantLeaseLock;
import dev.leasehold.ReleaseReport;
import dev.leasehold.ReleaseStatus;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A deliberately broken lock, the "easy version" most teams start with: {@code SET NX PX}, then a
 * plain {@code DEL} on release (which deletes whoever holds the lock now), and a holder that
 * believes it holds the lock until it releases it. It exists only so the fault tests can show that
 * the history checker catches what it is meant to catch.
 */
final class NaiveRedisLock implements DistributedLock {

    private final RedisCommands<String, String> redis;
    private final String name;
    private final Duration ttl;

    NaiveRedisLock(RedisCommands<String, String> redis, String name, Duration ttl) {
        this.redis = redis;
        this.name = name;
        this.ttl = ttl;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockOptions options() {
        return LockOptions.fixedLease(ttl);
    }

    @Override
    public Lease acquire(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        String value = UUID.randomUUID().toString();
        while (System.nanoTime() < deadline) {
            synchronized (redis) {
                long sentAt = System.nanoTime();
                if ("OK".equals(redis.set(name, value, SetArgs.Builder.nx().px(ttl.toMillis())))) {
                    return new NaiveLease(redis.incr(name + ":counter"), sentAt);
                }
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new LockTimeoutException(name, wait);
    }

    @Override
    public Lease acquire() {
        return acquire(MAX_WAIT);
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait) {
        throw new UnsupportedOperationException("the naive lock only supports acquire(wait)");
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration wait) {
        throw new UnsupportedOperationException("the naive lock only supports acquire(wait)");
    }

    @Override
    public ReentrantLeaseLock asJavaLock() {
        throw new UnsupportedOperationException("the naive lock only supports acquire(wait)");
    }

    private final class NaiveLease implements Lease {

        private final long token;
        private final long sentAtNanos;
        private volatile boolean released;

        NaiveLease(long token, long sentAtNanos) {
            this.token = token;
            this.sentAtNanos = sentAtNanos;
        }

        @Override
        public String lockName() {
            return name;
        }

        @Override
        public long token() {
            return token;
        }

        @Override
        public boolean isValid() {
            return !released;
        }

        @Override
        public Duration remaining() {
            // As Leasehold counts it, from the send of the SET that won; the naive holder ignores it.
            long deadline = sentAtNanos + ttl.minus(options().drift()).toNanos();
            return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        }

        @Override
        public void ensureValid() {
            if (released) {
                throw new LeaseLostException(name, token, "released");
            }
        }

        /** Naive too: a PEXPIRE without checking whose key it is. */
        @Override
        public void extend(Duration ttl) {
            synchronized (redis) {
                redis.pexpire(name, ttl.toMillis());
            }
        }

        @Override
        public CompletableFuture<Void> extendAsync(Duration ttl) {
            extend(ttl);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<LeaseLostException> lost() {
            return new CompletableFuture<>();
        }

        @Override
        public ReleaseStatus release() {
            released = true;
            synchronized (redis) {
                redis.del(name);
            }
            return ReleaseStatus.RELEASED;
        }

        @Override
        public CompletableFuture<ReleaseStatus> releaseAsync() {
            return CompletableFuture.completedFuture(release());
        }

        @Override
        public Optional<ReleaseReport> releaseReport() {
            return released ? Optional.of(new ReleaseReport(ReleaseStatus.RELEASED, 1, 1, 1)) : Optional.empty();
        }

        @Override
        public void close() {
            release();
        }
    }
}
