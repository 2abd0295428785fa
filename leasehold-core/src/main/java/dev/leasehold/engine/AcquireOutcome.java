package dev.leasehold.engine;

import java.util.Locale;

/** How an acquisition ended, as {@link LeaseEvents#acquireEnded} reports it. */
public enum AcquireOutcome {
    /** It got a lease. */
    ACQUIRED,
    /** Its wait elapsed: {@link dev.leasehold.LockTimeoutException}. */
    TIMEOUT,
    /** The backend was unreachable or refused: {@link dev.leasehold.LockUnavailableException}. */
    UNAVAILABLE;

    /** The lower-case name, as a meter tag value ({@code acquired}, {@code timeout}, {@code unavailable}). */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
