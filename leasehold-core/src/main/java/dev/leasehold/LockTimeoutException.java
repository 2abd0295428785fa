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
        super("Lock '" + lockName + "' was not acquired within " + waited
                + ": another holder kept it. Wait longer, or use tryAcquire to skip.");
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
