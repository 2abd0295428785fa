package dev.leasehold;

import java.time.Duration;

/**
 * The wait given to {@link DistributedLock#acquire(Duration)} elapsed while another
 * holder kept the lock. Nothing was taken: no key, subscription or renewal task of
 * this attempt remains.
 */
public class LockTimeoutException extends LeaseholdException {

    private final String lockName;
    private final Duration waited;
    private final String heldBy;

    public LockTimeoutException(String lockName, Duration waited) {
        this(lockName, waited, "another holder kept it");
    }

    /**
     * @param heldBy who kept the lock, as precisely as known, e.g. "it is held by this client
     *               (thread 'worker-3')"
     */
    public LockTimeoutException(String lockName, Duration waited, String heldBy) {
        super("Lock '" + lockName + "' was not acquired within " + waited
                + ": " + heldBy + ". Wait longer, or use tryAcquire to skip.");
        this.lockName = lockName;
        this.waited = waited;
        this.heldBy = heldBy;
    }

    /**
     * The same timeout (lock name, wait, holder) worded for the caller's context, e.g. by the
     * Spring starter to name the annotated method; created on the caller's thread, its stack trace
     * shows the caller, where the engine's may show only the thread that ended the wait.
     *
     * @param message the whole message
     * @param timeout the timeout it stands for
     */
    public LockTimeoutException(String message, LockTimeoutException timeout) {
        super(message);
        this.lockName = timeout.lockName;
        this.waited = timeout.waited;
        this.heldBy = timeout.heldBy;
    }

    public String lockName() {
        return lockName;
    }

    public Duration waited() {
        return waited;
    }

    /** Who kept the lock, as precisely as known: "another holder kept it" unless more is known. */
    public String heldBy() {
        return heldBy;
    }
}
