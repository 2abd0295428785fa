package dev.leasehold.micrometer;

/**
 * The context of a {@code leasehold.acquire} observation: one acquisition's wait, from the call until
 * it was granted, timed out, skipped (a try), found the backend unavailable, failed or was cancelled.
 * {@link #outcome()} is then {@code acquired}, {@code timeout}, {@code skipped}, {@code unavailable},
 * {@code failed} or {@code cancelled} ({@link dev.leasehold.engine.AcquireOutcome#tag()}).
 */
public final class AcquireObservationContext extends LockObservationContext {

    AcquireObservationContext(String lockName, String kind, String backend) {
        super(lockName, kind, backend, "pending");
    }
}
