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
    }

    public String lockName() {
        return lockName;
    }

    public Duration waited() {
        return waited;
    }
}
