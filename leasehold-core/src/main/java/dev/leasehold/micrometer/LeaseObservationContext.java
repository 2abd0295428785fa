package dev.leasehold.micrometer;

/**
 * The context of a {@code leasehold.lease} observation: one hold, from the grant until the lease was
 * released or lost. {@link #outcome()} is then {@code released} or {@code lost}, and a lost lease has
 * its {@link #lossReason()} and the {@link dev.leasehold.LeaseLostException} as its error.
 */
public final class LeaseObservationContext extends LockObservationContext {

    /** The {@link #lossReason()} of a lease that was not lost. */
    public static final String NOT_LOST = "none";

    private volatile String lossReason = NOT_LOST;

    LeaseObservationContext(String lockName, String kind, String backend) {
        super(lockName, kind, backend, "held");
    }

    /**
     * Why the lease was lost ({@code expired}, {@code max_hold}, {@code refused}, {@code backend},
     * {@code client_closed}: {@link dev.leasehold.engine.LossReason#tag()}), or {@value #NOT_LOST}.
     */
    public String lossReason() {
        return lossReason;
    }

    void lossReason(String lossReason) {
        this.lossReason = lossReason;
    }
}
