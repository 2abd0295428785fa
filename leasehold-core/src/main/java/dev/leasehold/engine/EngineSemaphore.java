package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

/**
 * A {@link DistributedSemaphore} served by the engine, for every backend: its acquire methods are
 * those of an engine lock over the backend's permit protocol, each acquisition taking one permit,
 * so every permit is a lease with its own token, renewal and {@link Lease#lost()}. The backend
 * supplies only how to count the permits still free.
 */
public final class EngineSemaphore implements DistributedSemaphore {

    private final DistributedLock permit;
    private final int permits;
    private final IntSupplier available;

    /**
     * @param permit    the engine lock whose every acquisition takes one permit
     * @param permits   the number of permits, already checked by {@link dev.leasehold.spi.Args#permits}
     * @param available counts the permits free now on the backend; may throw what
     *                  {@link #available()} documents
     */
    public EngineSemaphore(DistributedLock permit, int permits, IntSupplier available) {
        this.permit = permit;
        this.permits = permits;
        this.available = available;
    }

    /** The lock whose every acquisition takes one permit: with one permit, an exclusive lock. */
    public DistributedLock lock() {
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
        return available.getAsInt();
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
