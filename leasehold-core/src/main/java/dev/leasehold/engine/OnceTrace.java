package dev.leasehold.engine;

import dev.leasehold.LeaseLostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds an {@link AcquisitionTrace} to its contract whatever races the engine runs: the first of
 * {@link #granted()} and {@link #notGranted} wins (a late grant after a cancellation, or a cancellation
 * after the grant, is dropped), and the lease's events pass only after a grant, each once. A trace
 * that throws (an observation handler's bug) is logged and does not reach the engine: thrown inside
 * a grant's delivery it would leave the caller waiting and the lock held by nobody.
 */
final class OnceTrace implements AcquisitionTrace {

    private static final int WAITING = 0;
    private static final int GRANTED = 1;
    private static final int LOST = 2;
    private static final int ENDED = 3;

    private static final Logger LOG = LoggerFactory.getLogger(OnceTrace.class);

    private final AcquisitionTrace trace;
    private final AtomicInteger state = new AtomicInteger(WAITING);

    private OnceTrace(AcquisitionTrace trace) {
        this.trace = trace;
    }

    /** {@code trace} guarded; {@link AcquisitionTrace#NONE} stays as it is. */
    static AcquisitionTrace of(AcquisitionTrace trace) {
        return trace == null || trace == NONE ? NONE : new OnceTrace(trace);
    }

    @Override
    public void granted() {
        if (state.compareAndSet(WAITING, GRANTED)) {
            safely(() -> trace.granted());
        }
    }

    @Override
    public void notGranted(AcquireOutcome outcome, Throwable error) {
        if (state.compareAndSet(WAITING, ENDED)) {
            safely(() -> trace.notGranted(outcome, error));
        }
    }

    @Override
    public void leaseLost(LossReason reason, LeaseLostException error) {
        if (state.compareAndSet(GRANTED, LOST)) {
            safely(() -> trace.leaseLost(reason, error));
        }
    }

    @Override
    public void leaseEnded() {
        int was = state.get();
        if ((was == GRANTED || was == LOST) && state.compareAndSet(was, ENDED)) {
            safely(() -> trace.leaseEnded());
        }
    }

    private static void safely(Runnable event) {
        try {
            event.run();
        } catch (RuntimeException failed) {
            LOG.warn("A trace of a lock acquisition threw; the lock is not affected: {}", failed.toString());
        }
    }
}
