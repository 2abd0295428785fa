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

    private final String lockName;
    private final long token;

    /**
     * @param lockName the lock's name on the backend
     * @param token    the fencing token of the lost lease
     * @param cause    why the lease was lost
     */
    public LockLostException(String lockName, long token, LeaseLostException cause) {
        super("Lock '" + lockName + "' (token " + token + ") was lost before unlock(): " + cause.getMessage()
                + "; work done under it may have overlapped another holder's (only writes fenced with the token "
                + "were protected)", cause);
        this.lockName = lockName;
        this.token = token;
    }

    /** The lock's name on the backend. */
    public String lockName() {
        return lockName;
    }

    /** The fencing token of the lost lease. */
    public long token() {
        return token;
    }

    /** Why the lease was lost. */
    @Override
    public LeaseLostException getCause() {
        return (LeaseLostException) super.getCause();
    }
}
