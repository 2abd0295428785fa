package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;

/**
 * A {@link DistributedSemaphore} on etcd: its acquire methods are those of an engine lock over a
 * permit rule ({@link QueueRule#permits(int)}), each acquisition taking one permit, so every permit
 * is a lease with its own etcd lease, token, renewal and {@link Lease#lost()}.
 */
final class EtcdSemaphore implements DistributedSemaphore {

    private final int permits;
    private final DistributedLock permit;
    private final ToIntFunction<EtcdSemaphore> available;

    EtcdSemaphore(int permits, DistributedLock permit, ToIntFunction<EtcdSemaphore> available) {
        this.permits = permits;
        this.permit = permit;
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
        return available.applyAsInt(this);
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
