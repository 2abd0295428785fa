package dev.leasehold;

/**
 * The resource side of fencing: admits a write for {@code (resource, token)} only if the token
 * is not lower than the highest token it has admitted for that resource, and records it,
 * atomically with the write itself. A holder whose lease was lost while it was paused carries a
 * lower token than the holder that replaced it, so its late writes are refused.
 *
 * <p><b>Read-modify-write.</b> Pass the read through the guard as well, with the same token: a
 * new holder's admitted read then refuses the late write of an old holder that was paused before
 * writing. Fencing only the write lets that late write land between the new holder's read and
 * its write, and an update is lost.
 *
 * <p>Implementations decide how the check joins the write: in one database transaction, in one
 * Redis script, or under one in-memory lock.
 *
 * <p><b>Pass the lease, not only its token.</b> {@link #admit(String, Lease, FencedWrite)} (and the
 * lease overloads of the JDBC and Redis guards) first refuse a lease that its own client already
 * knows is no longer valid: lost (a renewal found the key broken or taken, or the local deadline
 * passed) or released. The token alone cannot tell: after {@code leasehold break}, until a new
 * holder has written, the old holder's token is still the highest, and its write would be admitted.
 * The refusal is a {@link LeaseLostException}, not a {@link StaleTokenException}: no higher token
 * need have been admitted, the lease itself is gone, and it is what the holder's
 * {@link Lease#ensureValid()} and {@code DistributedLock.call} throw for the same loss (counted once
 * in {@code leasehold.lease.overrun}).
 *
 * <p><b>The window that remains.</b> A lease lost on the server but not yet known to its client
 * passes that check: between the server-side loss (a break, an expiry while the client was paused,
 * a failover) and the renewal that finds it (the next one, at most ttl/3 plus the operation
 * timeout later, and never after the local deadline) the lease is still valid locally, and so is a
 * lease that is lost between the check and the write reaching the resource. In that window only the
 * token order protects the resource: the late write is refused once a newer holder's write (or
 * read) was admitted, and admitted otherwise, when no newer holder has touched the resource yet.
 */
public interface FenceGuard {

    /**
     * Checks {@code token} for {@code resource}, then runs {@code write} under the same atomic
     * step, and records the token as admitted.
     *
     * @return what {@code write} returned
     * @throws StaleTokenException if a higher token was already admitted; {@code write} did not run
     * @throws IllegalArgumentException if {@code resource} is not a valid name or {@code token} is
     *         negative (no lease carries one); {@code write} did not run
     */
    <T> T admit(String resource, long token, FencedWrite<T> write);

    /**
     * {@link #admit(String, long, FencedWrite)} with {@code lease}'s token, after checking that the
     * lease is still valid. This default checks just before the atomic step; an implementation may
     * check inside it, right before {@code write} runs (as {@link InMemoryFenceGuard} does).
     *
     * @return what {@code write} returned
     * @throws LeaseLostException if the lease is lost or released ({@link Lease#isValid()} is false);
     *         {@code write} did not run and no token was recorded
     * @throws StaleTokenException if a higher token was already admitted; {@code write} did not run
     * @throws IllegalArgumentException if {@code lease} is null or {@code resource} is not a valid name
     */
    default <T> T admit(String resource, Lease lease, FencedWrite<T> write) {
        return admit(resource, tokenOf(lease), write);
    }

    /**
     * The token of {@code lease}, which must still be valid: the check every guard's lease overload
     * makes before it admits a write (see the class documentation for the window it leaves).
     *
     * @throws IllegalArgumentException if {@code lease} is null
     * @throws LeaseLostException if the lease is lost or released, from {@link Lease#ensureValid()}
     */
    static long tokenOf(Lease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null: pass the Lease whose token the write carries");
        }
        lease.ensureValid();
        return lease.token();
    }

    /** The highest token admitted so far for {@code resource}, or {@code Long.MIN_VALUE} if none. */
    long highestAdmitted(String resource);

    /** A write that runs only after its token was admitted. */
    @FunctionalInterface
    interface FencedWrite<T> {
        T run();
    }
}
