package dev.leasehold;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * At most {@link #permits()} leases on one name at once, across every client. Each permit is a
 * {@link Lease} of its own, with its own ttl, renewal, token and {@link Lease#lost()}: a holder
 * that crashes gives its permit back when its lease expires, so no permit leaks (unlike a counting
 * semaphore whose holders must remember to give back).
 *
 * <p>The acquire methods behave like {@link DistributedLock}'s: each returns a lease for one
 * permit or throws, and cleans up what it took when it fails, times out or is interrupted.
 *
 * <p><b>The number of permits</b> is a property of the name while any permit of it is held:
 * every client must then use the same number, and an acquire (or {@link #available()}) with
 * another one throws {@link PermitsMismatchException}, naming both numbers. Once no permit is
 * held, the next grant sets the number afresh.
 */
public interface DistributedSemaphore {

    /**
     * Most permits a semaphore may have. Each permit held is one lease, renewed on its own; a
     * limit larger than this is a counter, not a semaphore.
     */
    int MAX_PERMITS = 100_000;

    /** The semaphore's name. */
    String name();

    /** How many leases may be held at once. */
    int permits();

    /** The options every permit's lease is held with. */
    LockOptions options();

    /**
     * Permits free right now: {@link #permits()} minus the leases held and not expired. Only a
     * snapshot: it may have changed by the time the caller acts on it.
     *
     * @throws PermitsMismatchException if live leases hold the name with another number of permits
     * @throws LockUnavailableException if the backend cannot be reached
     */
    int available();

    /**
     * Waits as long as it takes for a permit.
     *
     * @throws PermitsMismatchException if live leases hold the name with another number of permits
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     */
    Lease acquire();

    /**
     * Waits up to {@code wait} for a permit. {@link Duration#ZERO} tries once.
     *
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link DistributedLock#MAX_WAIT}
     * @throws LockTimeoutException if no permit came free during the wait
     * @throws PermitsMismatchException if live leases hold the name with another number of permits
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     */
    Lease acquire(Duration wait);

    /** Like {@link #acquire(Duration)}, but an elapsed wait gives an empty result. */
    Optional<Lease> tryAcquire(Duration wait);

    /** Like {@link DistributedLock#acquireAsync(Duration)}, for one permit. */
    CompletableFuture<Lease> acquireAsync(Duration wait);

    /**
     * Lease-scoped work on one permit: acquires (waiting up to {@code wait}, as {@link #acquire(Duration)}), runs
     * {@code work} with the lease bound to this thread as {@link Lease#current()}, releases the lease
     * and returns the work's result, or rethrows its exception unchanged.
     *
     * <p><b>When the lease is lost while the work runs</b> (a renewal found another holder, or the
     * local deadline passed without a successful renewal), this thread is interrupted at once and
     * the call throws {@link LeaseLostException}, with the work's own exception, if it threw one,
     * added as suppressed. Interruption is cooperative: work that never looks at its interrupt
     * status (blocking I/O that ignores interrupts, a busy loop) runs on, and the loss is reported
     * when it returns. The interrupt this call delivered is cleared before it throws. The work's
     * writes should still carry {@code Lease.current().token()} through a {@link FenceGuard}: the
     * guard is what stops a write already under way.
     *
     * <p>If the release fails (the backend cannot be reached) after work that completed within its
     * lease, the release's {@link LockUnavailableException} is thrown (or added as suppressed to the
     * work's exception), as with try-with-resources.
     *
     * @throws IllegalArgumentException if work is null (nothing is acquired then), or wait is bad
     * @throws LockTimeoutException if the lock was not acquired within the wait
     * @throws LeaseLostException if the lease was lost while the work ran
     * @throws Exception whatever the work threw, unchanged
     */
    default <T> T call(Duration wait, Callable<T> work) throws Exception {
        LeaseScope.requireWork(work);
        return LeaseScope.call(acquire(wait), work);
    }

    /**
     * Like {@link #call(Duration, Callable)}, for work without a result and without checked
     * exceptions.
     */
    default void run(Duration wait, Runnable work) {
        LeaseScope.requireWork(work);
        try {
            LeaseScope.call(acquire(wait), () -> {
                work.run();
                return null;
            });
        } catch (RuntimeException | Error unchecked) {
            throw unchecked;
        } catch (Exception impossible) {
            throw new IllegalStateException("a Runnable threw a checked exception", impossible);
        }
    }

    /**
     * Asynchronous lease-scoped work: acquires like {@link #acquireAsync(Duration)}, then calls
     * {@code work} with the lease and releases the lease when the stage it returned completes.
     * The returned future completes with the stage's result or exception, unchanged; when the lease
     * is lost first, the stage is cancelled at once ({@code toCompletableFuture().cancel(true)}) and
     * the future fails with {@link LeaseLostException} (the stage's own failure, if it failed with
     * something else than that cancellation, added as suppressed). The release runs on
     * {@link java.util.concurrent.ForkJoinPool#commonPool()}, never on the thread that completed
     * the stage. {@link Lease#current()} is not bound here: the work gets its lease as argument.
     *
     * @throws IllegalArgumentException if work is null (nothing is acquired then), or wait is bad
     */
    default <T> CompletableFuture<T> callAsync(Duration wait, Function<Lease, ? extends CompletionStage<T>> work) {
        LeaseScope.requireWork(work);
        return LeaseScope.callAsync(acquireAsync(wait), work);
    }
}
