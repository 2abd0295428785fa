package dev.leasehold.micrometer;

import dev.leasehold.LeaseLostException;
import dev.leasehold.engine.AcquireOutcome;
import dev.leasehold.engine.AcquisitionTrace;
import dev.leasehold.engine.LossReason;
import io.micrometer.observation.Observation;

/**
 * One acquisition's observations: the acquire, then the lease. The engine calls it in the order
 * {@link AcquisitionTrace} states, one call at a time, so the fields need no more than that order.
 */
final class ObservationTrace implements AcquisitionTrace {

    private final ObservationLeaseEvents events;
    private final Observation parent;
    private final Observation acquire;
    private final AcquireObservationContext acquireContext;
    private volatile Observation lease = Observation.NOOP;
    private volatile LeaseObservationContext leaseContext;

    ObservationTrace(ObservationLeaseEvents events, Observation parent, Observation acquire,
                     AcquireObservationContext acquireContext) {
        this.events = events;
        this.parent = parent;
        this.acquire = acquire;
        this.acquireContext = acquireContext;
    }

    @Override
    public void granted() {
        acquireContext.outcome(AcquireOutcome.ACQUIRED.tag());
        acquire.stop();
        leaseContext = new LeaseObservationContext(acquireContext.lockName(), acquireContext.kind(),
                acquireContext.backend());
        lease = events.startLease(parent, leaseContext);
    }

    @Override
    public void notGranted(AcquireOutcome outcome, Throwable error) {
        acquireContext.outcome(outcome.tag());
        // A skipped try is the caller's choice to go without the lock, not a failure.
        if (error != null && outcome != AcquireOutcome.SKIPPED) {
            acquire.error(error);
        }
        acquire.stop();
    }

    @Override
    public void leaseLost(LossReason reason, LeaseLostException error) {
        leaseContext.outcome("lost");
        leaseContext.lossReason(reason.tag());
        lease.error(error);
    }

    @Override
    public void leaseEnded() {
        if (leaseContext.lossReason().equals(LeaseObservationContext.NOT_LOST)) {
            leaseContext.outcome("released");
        }
        lease.stop();
    }
}
