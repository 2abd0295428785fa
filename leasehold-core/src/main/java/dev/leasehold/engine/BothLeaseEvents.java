package dev.leasehold.engine;

import dev.leasehold.LeaseLostException;

/** {@link LeaseEvents#both}: every event to two receivers, in order. */
record BothLeaseEvents(LeaseEvents first, LeaseEvents second) implements LeaseEvents {

    @Override
    public void acquireEnded(String kind, AcquireOutcome outcome, long waitNanos) {
        first.acquireEnded(kind, outcome, waitNanos);
        second.acquireEnded(kind, outcome, waitNanos);
    }

    @Override
    public void leaseStarted() {
        first.leaseStarted();
        second.leaseStarted();
    }

    @Override
    public void leaseEnded(long heldNanos) {
        first.leaseEnded(heldNanos);
        second.leaseEnded(heldNanos);
    }

    @Override
    public void renewalFailed() {
        first.renewalFailed();
        second.renewalFailed();
    }

    @Override
    public void leaseLost(LossReason reason) {
        first.leaseLost(reason);
        second.leaseLost(reason);
    }

    @Override
    public void leaseOverrun() {
        first.leaseOverrun();
        second.leaseOverrun();
    }

    @Override
    public void releaseFailed() {
        first.releaseFailed();
        second.releaseFailed();
    }

    @Override
    public AcquisitionTrace acquireStarted(String lockName, String kind, String backend) {
        AcquisitionTrace one = first.acquireStarted(lockName, kind, backend);
        AcquisitionTrace two = second.acquireStarted(lockName, kind, backend);
        if (one == AcquisitionTrace.NONE) {
            return two;
        }
        return two == AcquisitionTrace.NONE ? one : new BothTraces(one, two);
    }

    /** Two traces of one acquisition. */
    private record BothTraces(AcquisitionTrace first, AcquisitionTrace second) implements AcquisitionTrace {

        @Override
        public void granted() {
            first.granted();
            second.granted();
        }

        @Override
        public void notGranted(AcquireOutcome outcome, Throwable error) {
            first.notGranted(outcome, error);
            second.notGranted(outcome, error);
        }

        @Override
        public void leaseLost(LossReason reason, LeaseLostException error) {
            first.leaseLost(reason, error);
            second.leaseLost(reason, error);
        }

        @Override
        public void leaseEnded() {
            first.leaseEnded();
            second.leaseEnded();
        }
    }
}
