package dev.leasehold.zookeeper;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;

/**
 * A {@link DistributedSemaphore} on ZooKeeper: an engine lock over a permit rule, each
 * acquisition taking one permit as a lease of its own.
 */
final class ZooKeeperSemaphore implements DistributedSemaphore {

    private final DistributedLock permit;
    private final int permits;
    private final ToIntFunction<String> available;

    ZooKeeperSemaphore(DistributedLock permit, int permits, ToIntFunction<String> available) {
        this.permit = permit;
        this.permits = permits;
        this.available = available;
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
        return available.applyAsInt(permit.name());
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
