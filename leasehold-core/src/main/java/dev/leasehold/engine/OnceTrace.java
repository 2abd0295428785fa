package dev.leasehold.engine;

import dev.leasehold.LeaseLostException;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds an {@link AcquisitionTrace} to its contract whatever races the engine runs: the first of
 * {@link #granted()} and {@link #notGranted} wins (a late grant after a cancellation, or a cancellation
 * after the grant, is dropped), and the lease's events pass only after a grant, each once.
 */
final class OnceTrace implements AcquisitionTrace {

    private static final int WAITING = 0;
    private static final int GRANTED = 1;
    private static final int LOST = 2;
    private static final int ENDED = 3;

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
            trace.granted();
        }
    }

    @Override
    public void notGranted(AcquireOutcome outcome, Throwable error) {
        if (state.compareAndSet(WAITING, ENDED)) {
            trace.notGranted(outcome, error);
        }
    }

    @Override
    public void leaseLost(LossReason reason, LeaseLostException error) {
        if (state.compareAndSet(GRANTED, LOST)) {
            trace.leaseLost(reason, error);
        }
    }

    @Override
    public void leaseEnded() {
        int was = state.get();
        if ((was == GRANTED || was == LOST) && state.compareAndSet(was, ENDED)) {
            trace.leaseEnded();
        }
    }
}
