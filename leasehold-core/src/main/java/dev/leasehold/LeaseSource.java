package dev.leasehold;

import dev.leasehold.spi.Args;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where leases come from: what a {@link DistributedLock} and a {@link DistributedSemaphore} have
 * in common. Every acquire either returns a lease or throws; none returns without it, and an error
 * is never turned into {@code false}. An acquire that fails, times out or is interrupted cleans up
 * whatever it took on the server before it returns. Lease-scoped work ({@link #call},
 * {@link #run}, {@link #callAsync}) acquires, works and releases in one call.
 */
public interface LeaseSource {

    /** Longest wait accepted by the acquire methods. */
    Duration MAX_WAIT = Duration.ofDays(30);

    /** The name, as given to the client's factory ({@link LockClient#lock(String)}, ...). */
    String name();

    /** The options every lease from here is held with. */
    LockOptions options();

    /**
     * Waits as long as it takes for a lease (the lock, or one permit).
     *
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     * @throws LockClientClosedException if the client was closed
     */
    Lease acquire();

    /**
     * Waits up to {@code wait} for a lease (the lock, or one permit). {@link Duration#ZERO} tries once. The call
     * returns or throws within {@code wait} plus the client's operation timeout (the bound on the
     * one backend call that may be in flight when the wait ends).
     *
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link #MAX_WAIT}
     * @throws LockTimeoutException if another holder kept the lock for the whole wait (the
     *                              message says when it was a lease of this same client)
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     * @throws LockClientClosedException if the client was closed
     */
    Lease acquire(Duration wait);

    /**
     * Like {@link #acquire(Duration)}, but an elapsed wait gives an empty result instead of
     * {@link LockTimeoutException}, counted in {@code leasehold.acquire.wait} with
     * {@code outcome=skipped} rather than {@code timeout}. Backend failures still throw.
     *
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link #MAX_WAIT}
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     * @throws LockClientClosedException if the client was closed
     */
    Optional<Lease> tryAcquire(Duration wait);

    /**
     * Acquires without blocking the caller. The future completes with the lease, or
     * exceptionally with {@link LockTimeoutException} or {@link LockUnavailableException}, on a
     * pool thread ({@link java.util.concurrent.ForkJoinPool#commonPool()}), never on a client I/O
     * thread, so its callbacks may block. The caller may complete the future itself: cancelling
     * it, completing it or bounding it ({@code orTimeout}) abandons the acquire, which then
     * releases anything it took and frees its place.
     *
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link #MAX_WAIT}
     * @throws LockClientClosedException if the client was closed
     */
    CompletableFuture<Lease> acquireAsync(Duration wait);

    /**
     * Lease-scoped work: acquires (waiting up to {@code wait}, as {@link #acquire(Duration)}), runs
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
     * <p>The loss is thrown as soon as the work returns: the release of a lost lease is not waited
     * for (it runs in the background), so a frozen or dead backend cannot hold the caller beyond the
     * lease's local deadline.
     *
     * <p>If the release fails (the backend cannot be reached) after work that completed within its
     * lease, the work's outcome stands: its result is returned (or its exception thrown, with the
     * release's {@link LockUnavailableException} added as suppressed). The lock then stays taken
     * until its ttl runs out, since renewal stopped; the failure is logged as one WARN and counted
     * in {@code leasehold.release.failures}. A caller that retries on an exception so never repeats
     * work that was done.
     *
     * @throws IllegalArgumentException if work is null (nothing is acquired then), or wait is bad
     * @throws LockTimeoutException if the lock was not acquired within the wait
     * @throws LeaseLostException if the lease was lost while the work ran, or was already lost when it
     *         was granted (its grant answered after its local deadline): the work is then not run
     * @throws Exception whatever the work threw, unchanged
     */
    default <T> T call(Duration wait, Callable<T> work) throws Exception {
        Args.notNull("work", work);
        return LeaseScope.call(acquire(wait), work);
    }

    /**
     * Lease-scoped work if the lease can be had, as a job that only one of many machines should run
     * wants: acquires like {@link #tryAcquire(Duration)}; with the lease, behaves exactly as
     * {@link #call(Duration, Callable)}; when the wait elapsed, returns {@code otherwise.get()}
     * without running {@code work} (nothing is held then). That elapsed wait is counted in
     * {@code leasehold.acquire.wait} with {@code outcome=skipped}, not {@code timeout}.
     *
     * @param otherwise what to return when the lease could not be had, e.g. {@code () -> null}
     * @throws IllegalArgumentException if work or otherwise is null (nothing is acquired then), or
     *                                  wait is bad
     * @throws LockUnavailableException if the backend cannot be reached (not a skip)
     * @throws LeaseLostException if the lease was lost while the work ran, or was already lost when it
     *         was granted (its grant answered after its local deadline): the work is then not run
     * @throws Exception whatever the work threw, unchanged
     */
    default <T> T tryCall(Duration wait, Callable<T> work, Supplier<? extends T> otherwise) throws Exception {
        Args.notNull("work", work);
        if (otherwise == null) {
            throw new IllegalArgumentException("otherwise must not be null; pass () -> null to return null");
        }
        Optional<Lease> lease = tryAcquire(wait);
        return lease.isPresent() ? LeaseScope.call(lease.get(), work) : otherwise.get();
    }

    /**
     * Like {@link #call(Duration, Callable)}, for work without a result and without checked
     * exceptions.
     */
    default void run(Duration wait, Runnable work) {
        Args.notNull("work", work);
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
     * something else than that cancellation, added as suppressed), without waiting for the lost
     * lease's release; a lease already lost when granted (its grant answered after its local deadline)
     * fails it so without calling {@code work}. A release that cannot reach the backend after the stage completed within its
     * lease does not fail the result, as in {@link #call(Duration, Callable)}. The release does not block
     * a thread ({@link Lease#releaseAsync()}), and the returned future completes on
     * {@link java.util.concurrent.ForkJoinPool#commonPool()}, never on a client I/O thread. {@link Lease#current()} is not bound here: the work gets its lease as argument.
     *
     * @throws IllegalArgumentException if work is null (nothing is acquired then), or wait is bad
     */
    default <T> CompletableFuture<T> callAsync(Duration wait, Function<Lease, ? extends CompletionStage<T>> work) {
        Args.notNull("work", work);
        return LeaseScope.callAsync(acquireAsync(wait), work);
    }
}
