package dev.leasehold.integration;

import dev.leasehold.LeaseLostException;

import java.util.ConcurrentModificationException;

/**
 * {@link LeaseholdLock#unlock()} found the lease already lost: it expired, or the backend handed the
 * lock to someone else, before this thread's last {@code unlock()}. Work done under the lock may have
 * overlapped another holder's; only writes fenced with the lease's token were protected.
 *
 * <p>A {@link ConcurrentModificationException}, as Spring Integration's own {@code RedisLockRegistry}
 * and {@code JdbcLockRegistry} throw in this case, so code written against them keeps catching it.
 * The cause is the {@link LeaseLostException} that says why the lease was lost. The release never
 * touched the next holder's lock, and the thread no longer holds the lock.
 */
public class LockLostException extends ConcurrentModificationException {

    private static final long serialVersionUID = 1L;

    /**
     * The lock name and token are the lost lease's, which {@code cause} already carries: read from it,
     * not kept a second time, so the two cannot disagree.
     *
     * @param cause why the lease was lost: the {@link LeaseLostException} of the lease this unlock released
     */
    public LockLostException(LeaseLostException cause) {
        super("Lock '" + cause.lockName() + "' (token " + cause.token() + ") was lost before unlock(): "
                + cause.getMessage() + "; work done under it may have overlapped another holder's (only writes "
                + "fenced with the token were protected)", cause);
    }

    /** The lock's name on the backend. */
    public String lockName() {
        return getCause().lockName();
    }

    /** The fencing token of the lost lease. */
    public long token() {
        return getCause().token();
    }

    /** Why the lease was lost. */
    @Override
    public LeaseLostException getCause() {
        return (LeaseLostException) super.getCause();
    }
}
