package dev.leasehold.bench;

import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Redisson's {@link RPermitExpirableSemaphore}, the peer of a Leasehold semaphore: acquire returns
 * a permit id, {@code release(permitId)} gives it back, and each permit is acquired with the ttl as
 * its lease time, so a crashed holder's permit comes back as a Leasehold lease's does (Redisson
 * renews no permit; the benchmarks hold each for far less than the ttl). No fencing token. The
 * number of permits is set once per name with {@code trySetPermits}, outside the timed calls.
 */
final class RedissonSemaphoreAdapter implements LockAdapter {

    private final RedissonClient client;
    private final long leaseMillis;

    private RedissonSemaphoreAdapter(RedissonClient client, Duration ttl) {
        this.client = client;
        this.leaseMillis = ttl.toMillis();
    }

    static RedissonSemaphoreAdapter connect(String uri, Duration ttl) {
        return new RedissonSemaphoreAdapter(RedissonClients.connect(uri, ttl), ttl);
    }

    @Override
    public String label() {
        return "Redisson RPermitExpirableSemaphore";
    }

    @Override
    public Handle lock(String name) {
        RPermitExpirableSemaphore semaphore = client.getPermitExpirableSemaphore(name);
        semaphore.trySetPermits(LeaseholdAdapter.SEMAPHORE_PERMITS);
        return () -> {
            String permit;
            try {
                permit = semaphore.acquire(leaseMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while acquiring a permit", e);
            }
            return Held.of(NO_TOKEN, () -> semaphore.release(permit));
        };
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
