package dev.leasehold;

import dev.leasehold.spi.Args;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Lease-scoped work: runs work under a lease it was given, binds the lease to the thread as
 * {@link Lease#current()}, interrupts the worker the moment {@link Lease#lost()} completes, and
 * releases the lease afterwards. Engine-neutral: it uses only the {@link Lease} API, so every lock
 * kind and backend gets the same behaviour through the default methods of {@link DistributedLock}
 * and {@link DistributedSemaphore}.
 *
 * <p>Interruption is cooperative: work that never checks its interrupt status runs on, and the call
 * reports the loss when the work returns. The interrupt this class delivered is cleared before the
 * call throws, so it does not leak into the caller's later code.
 *
 * <p>Nothing here waits on the backend after a loss (the release of a lost lease runs on its own),
 * and a release that fails after work that ended within its lease never replaces the work's outcome.
 */
final class LeaseScope {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseScope.class);
    private static final String RELEASE_FOUND_IT_GONE = "the release after the work found another holder or no key";
    private static final ThreadLocal<Lease> CURRENT = new ThreadLocal<>();

    /** The worker is running its work; a loss may interrupt it. */
    private static final int RUNNING = 0;
    /** The work returned or threw; no interrupt may be delivered any more. */
    private static final int DONE = 1;
    /** A loss is interrupting the worker right now. */
    private static final int INTERRUPTING = 2;
    /** A loss interrupted the worker. */
    private static final int INTERRUPTED = 3;

    private LeaseScope() {
    }

    static Lease current() {
        Lease lease = CURRENT.get();
        if (lease == null) {
            throw new IllegalStateException("no lease is bound to this thread: Lease.current() is only set while "
                    + "DistributedLock.call/run or DistributedSemaphore.call/run runs its work");
        }
        return lease;
    }

    /**
     * Runs {@code work} under {@code lease}, which the caller just acquired, and releases the lease.
     * Returns the work's result, or rethrows its exception unchanged, unless the lease was lost while
     * it ran: then throws {@link LeaseLostException} with the work's own exception (if any) suppressed.
     * A lease already lost when it arrives (its grant answered after its local deadline) is released
     * and thrown as lost without running the work.
     */
    static <T> T call(Lease lease, Callable<T> work) throws Exception {
        if (!lease.isValid()) {
            throw lostOnArrival(lease);
        }
        Bound<T> bound = runBound(lease, work);
        T result = bound.result;
        Throwable failure = bound.failure;
        LeaseLostException loss = bound.interrupted || !lease.isValid() ? lossOf(lease) : null;
        if (loss != null) {
            // Not waited for: the backend that lost the lease may be frozen, and the loss is news now.
            lease.releaseAsync();
            overran(lease);
            addSuppressed(loss, failure);
            throw loss;
        }
        LeaseholdException releaseFailure = null;
        try {
            if (lease.release() == ReleaseStatus.ALREADY_LOST) {
                loss = new LeaseLostException(lease.lockName(), lease.token(), RELEASE_FOUND_IT_GONE);
            }
        } catch (LeaseholdException unreachable) {
            releaseFailure = unreachable;
            releaseFailed(lease, unreachable);
        }
        if (loss != null) {
            overran(lease);
            addSuppressed(loss, failure);
            throw loss;
        }
        if (failure != null) {
            addSuppressed(failure, releaseFailure);
            throw sneaky(failure);
        }
        return result;
    }


    /**
     * Runs {@code work} under {@code lease}, which stays held afterwards (a leader's term): as
     * {@link #call(Lease, Callable)} but without the release. Throws {@link LeaseLostException} if
     * the lease was not valid at the start, or was lost while the work ran (the work's exception, if
     * any, suppressed).
     */
    static <T> T within(Lease lease, Callable<T> work) throws Exception {
        Args.notNull("work", work);
        lease.ensureValid();
        Bound<T> bound = runBound(lease, work);
        if (bound.interrupted || !lease.isValid()) {
            LeaseLostException loss = lossOf(lease);
            addSuppressed(loss, bound.failure);
            throw loss;
        }
        if (bound.failure != null) {
            throw sneaky(bound.failure);
        }
        return bound.result;
    }

    /** What work run by {@link #runBound} left: its result or failure, and whether a loss interrupted it. */
    private record Bound<T>(T result, Throwable failure, boolean interrupted) {
    }

    /**
     * Runs {@code work} with {@code lease} bound as {@link Lease#current()}, interrupting this thread
     * if the lease is lost meanwhile; the interrupt it delivered is cleared before it returns.
     */
    private static <T> Bound<T> runBound(Lease lease, Callable<T> work) {
        Thread worker = Thread.currentThread();
        AtomicInteger state = new AtomicInteger(RUNNING);
        CompletableFuture<Void> interrupter = lease.lost().toCompletableFuture().thenAccept(lost -> {
            if (state.compareAndSet(RUNNING, INTERRUPTING)) {
                worker.interrupt();
                state.set(INTERRUPTED);
            }
        });
        Lease outer = CURRENT.get();
        CURRENT.set(lease);
        T result = null;
        Throwable failure = null;
        try {
            result = work.call();
        } catch (Throwable thrown) {
            failure = thrown;
        } finally {
            restore(outer);
            interrupter.cancel(false);
        }
        boolean interrupted = !state.compareAndSet(RUNNING, DONE);
        if (interrupted) {
            // The loss callback may still be delivering its interrupt: let it finish, then clear it.
            while (state.get() == INTERRUPTING) {
                Thread.onSpinWait();
            }
            Thread.interrupted();
        }
        return new Bound<>(result, failure, interrupted);
    }

    /**
     * The release after work that ended within its lease could not reach the backend. That is no
     * failure of the work, which is done (a caller that saw an exception would repeat it): the key
     * expires by its ttl, renewal having stopped. So one WARN here, the engine's
     * {@code leasehold.release.failures} meter, and the work's own outcome for the caller.
     */
    private static void releaseFailed(Lease lease, LeaseholdException unreachable) {
        LOG.warn("The work under lock '{}' (token {}) finished, but its release failed; the lock stays taken until "
                + "its ttl runs out: {}", lease.lockName(), lease.token(), unreachable.getMessage());
    }

    /**
     * Runs {@code work} with {@code lease} once the acquire completes, cancels the stage it returned
     * when the lease is lost, and releases the lease when the stage completes.
     */
    static <T> CompletableFuture<T> callAsync(CompletableFuture<Lease> acquired,
                                              Function<Lease, ? extends CompletionStage<T>> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        acquired.whenComplete((lease, acquireFailure) -> {
            if (acquireFailure != null) {
                result.completeExceptionally(unwrap(acquireFailure));
                return;
            }
            if (!lease.isValid()) {
                result.completeExceptionally(lostOnArrival(lease));
                return;
            }
            CompletableFuture<T> stage;
            try {
                stage = requireStage(work.apply(lease));
            } catch (Throwable thrown) {
                stage = CompletableFuture.failedFuture(thrown);
            }
            CompletableFuture<T> running = stage;
            lease.lost().thenAccept(lost -> running.cancel(true));
            // Released without blocking anyone; the result is completed on the common pool, never on a
            // client's I/O thread, since the caller's own stages run where it completes.
            running.whenComplete((value, error) -> {
                // Read before the release, which ends the lease either way.
                LeaseLostException lostWhileWorking = lease.isValid() ? null : lossOf(lease);
                CompletableFuture<ReleaseStatus> release = lease.releaseAsync();
                // A lost lease's release is not waited for: the backend that lost it may be frozen.
                CompletableFuture<ReleaseStatus> awaited = lostWhileWorking == null ? release
                        : CompletableFuture.completedFuture(ReleaseStatus.ALREADY_LOST);
                awaited.whenCompleteAsync((status, releaseError) -> finish(result, lease, value, error,
                        lostWhileWorking, status, releaseError), ForkJoinPool.commonPool());
            });
        });
        return result;
    }

    /** Completes {@code result} from the work's outcome, the loss seen before the release, and the release's. */
    private static <T> void finish(CompletableFuture<T> result, Lease lease, T value, Throwable error,
                                   LeaseLostException lostWhileWorking, ReleaseStatus status, Throwable releaseError) {
        LeaseLostException loss = lostWhileWorking;
        LeaseholdException releaseFailure = null;
        if (releaseError != null) {
            Throwable failure = unwrap(releaseError);
            releaseFailure = failure instanceof LeaseholdException leasehold ? leasehold
                    : new LeaseholdException("releasing '" + lease.lockName() + "' failed: " + failure);
            releaseFailed(lease, releaseFailure);
        } else if (status == ReleaseStatus.ALREADY_LOST && loss == null) {
            loss = new LeaseLostException(lease.lockName(), lease.token(), RELEASE_FOUND_IT_GONE);
        }
        Throwable cause = error == null ? null : unwrap(error);
        if (loss != null) {
            overran(lease);
            if (!(cause instanceof java.util.concurrent.CancellationException)) {
                addSuppressed(loss, cause);
            }
            result.completeExceptionally(loss);
        } else if (cause != null) {
            addSuppressed(cause, releaseFailure);
            result.completeExceptionally(cause);
        } else {
            result.complete(value);
        }
    }

    private static <T> CompletableFuture<T> requireStage(CompletionStage<T> stage) {
        if (stage == null) {
            throw new IllegalStateException("the work returned a null CompletionStage");
        }
        return stage.toCompletableFuture();
    }

    /**
     * Work ran past its lease. The engine already counted it in {@code leasehold.lease.overrun}
     * (this call's {@link Lease#ensureValid()} or release found the lease lost) and logged the loss
     * as its one WARN; the caller gets the {@link LeaseLostException}. So only a DEBUG line here.
     */
    private static void overran(Lease lease) {
        LOG.debug("Work under the lease on lock '{}' (token {}) ran past its lease; the lease was lost while it ran",
                lease.lockName(), lease.token());
    }

    /**
     * The loss of a lease found invalid before its work started, which therefore never runs (no
     * overrun): released without waiting, since the backend that lost it may be frozen.
     */
    private static LeaseLostException lostOnArrival(Lease lease) {
        LeaseLostException loss = lossOf(lease);
        lease.releaseAsync();
        return loss;
    }

    /** The lease's own account of its loss, taken before the release (after it, it reads "released"). */
    private static LeaseLostException lossOf(Lease lease) {
        try {
            lease.ensureValid();
        } catch (LeaseLostException loss) {
            return loss;
        }
        return new LeaseLostException(lease.lockName(), lease.token(), "it was lost while the work ran");
    }

    private static void restore(Lease outer) {
        if (outer == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(outer);
        }
    }

    private static void addSuppressed(Throwable to, Throwable suppressed) {
        if (suppressed != null && suppressed != to) {
            to.addSuppressed(suppressed);
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** Rethrows any throwable unchanged (checked ones too: {@code call} declares {@code throws Exception}). */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable thrown) throws E {
        throw (E) thrown;
    }
}
