package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link DistributedSemaphore} on one Redis server: its acquire methods are those of an engine
 * lock over a {@link RedisSemaphoreProtocol}, each acquisition taking one permit, so every permit
 * is a lease with its own token, renewal and {@link Lease#lost()}.
 */
final class RedisSemaphore implements DistributedSemaphore {

    private final RedisSemaphores shared;
    private final int permits;
    private final DistributedLock permit;

    RedisSemaphore(RedisSemaphores shared, int permits, DistributedLock permit) {
        this.shared = shared;
        this.permits = permits;
        this.permit = permit;
    }

    /** The lock whose every acquisition takes one permit: with one permit, an exclusive lock. */
    DistributedLock lock() {
        return permit;
    }

    @Override
    public String name() {
        return permit.name();
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public LockOptions options() {
        return permit.options();
    }

    @Override
    public int available() {
        return shared.available(permit.name(), permits);
    }

    @Override
    public Lease acquire() {
        return permit.acquire();
    }

    @Override
    public Lease acquire(Duration wait) {
        return permit.acquire(wait);
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait) {
        return permit.tryAcquire(wait);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration wait) {
        return permit.acquireAsync(wait);
    }

    @Override
    public String toString() {
        return "DistributedSemaphore[" + permit.name() + ", " + permits + " permits, " + permit.options() + "]";
    }
}
