package dev.leasehold;

/**
 * A lease can no longer be trusted: a renewal found another holder (or no key), or the
 * local deadline passed without a successful renewal, or the lease was already released.
 * Work done under the lease must stop; writes made from now on must be refused by a
 * {@link FenceGuard}.
 */
public class LeaseLostException extends LeaseholdException {

    private final String lockName;
    private final long token;

    public LeaseLostException(String lockName, long token, String reason) {
        super("Lease on '" + lockName + "' (token " + token + ") is lost: " + reason);
        this.lockName = lockName;
        this.token = token;
    }

    public String lockName() {
        return lockName;
    }

    public long token() {
        return token;
    }
}
