package dev.leasehold.engine;

import java.util.Locale;

/**
 * How an acquisition ended, as {@link LeaseEvents#acquireEnded} reports it (the first four) and an
 * {@link AcquisitionTrace} hears it (all of them).
 */
public enum AcquireOutcome {
    /** It got a lease. */
    ACQUIRED,
    /** Its wait elapsed: {@link dev.leasehold.LockTimeoutException}. */
    TIMEOUT,
    /**
     * Its wait elapsed on a try ({@link dev.leasehold.LeaseSource#tryAcquire}, {@code tryCall}): the
     * caller chose to go on without the lock, so this is no failure.
     */
    SKIPPED,
    /** The backend was unreachable or refused: {@link dev.leasehold.LockUnavailableException}. */
    UNAVAILABLE,
    /**
     * The caller gave up (cancelled or completed its future, was interrupted) or the client closed
     * meanwhile. Traces only: {@link LeaseEvents#acquireEnded} is not called for it.
     */
    CANCELLED,
    /** Any other error (a refused option, a permit-count mismatch, ...). Traces only, as {@link #CANCELLED}. */
    FAILED;

    /**
     * The lower-case name, as a meter tag value ({@code acquired}, {@code timeout}, {@code skipped},
     * {@code unavailable}, {@code cancelled}, {@code failed}).
     */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
