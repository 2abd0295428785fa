package dev.leasehold.engine;

import dev.leasehold.LeaseLostException;

/**
 * One acquisition and the lease it gave, from the call to the end of the hold: what
 * {@link LeaseEvents#acquireStarted} returns, for traces (Leasehold's Micrometer Observation binding
 * implements it, {@code dev.leasehold.micrometer.ObservationLeaseEvents}). The engine calls, in this
 * order, either {@link #granted()}, then at most one {@link #leaseLost}, then {@link #leaseEnded()};
 * or {@link #notGranted} alone. Each at most once, possibly on different threads (never concurrently
 * for one trace). An implementation must be fast, must not block and must not throw.
 */
public interface AcquisitionTrace {

    /** Traces nothing: the default of {@link LeaseEvents#acquireStarted}. */
    AcquisitionTrace NONE = new AcquisitionTrace() {
    };

    /** The acquisition got its lease: the wait ends and the hold begins. */
    default void granted() {
    }

    /**
     * The acquisition ended without a lease.
     *
     * @param outcome how: {@link AcquireOutcome#TIMEOUT}, {@link AcquireOutcome#SKIPPED},
     *                {@link AcquireOutcome#UNAVAILABLE}, {@link AcquireOutcome#CANCELLED} or
     *                {@link AcquireOutcome#FAILED}
     * @param error   what the caller got, or null for a cancellation the caller made itself
     */
    default void notGranted(AcquireOutcome outcome, Throwable error) {
    }

    /**
     * The lease was lost while held; {@link #leaseEnded()} follows. A loss that the release itself
     * discovers (the key was already gone) comes after the hold ended and is not reported here.
     *
     * @param reason why, as the {@code leasehold.lease.lost} meter tags it
     * @param error  what {@link dev.leasehold.Lease#lost()} completes with
     */
    default void leaseLost(LossReason reason, LeaseLostException error) {
    }

    /** The lease stopped being held: it was released, discarded or lost. */
    default void leaseEnded() {
    }
}
