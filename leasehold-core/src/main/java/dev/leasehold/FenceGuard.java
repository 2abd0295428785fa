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

    /** The highest token admitted so far for {@code resource}, or {@code Long.MIN_VALUE} if none. */
    long highestAdmitted(String resource);

    /** A write that runs only after its token was admitted. */
    @FunctionalInterface
    interface FencedWrite<T> {
        T run();
    }
}
