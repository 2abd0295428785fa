package dev.leasehold;

/** What {@link Lease#release()} found. */
public enum ReleaseStatus {
    /** The lock was still ours and is now free. */
    RELEASED,
    /**
     * The lease had already been lost (expired or taken over) before this release; the
     * current holder's key was not touched.
     */
    ALREADY_LOST
}
