package dev.leasehold.bench;

/**
 * The resource a benchmark's lock protects, and the correctness check made inside every
 * benchmark: a plain (non-atomic, non-volatile) counter that only stays exact if no two holders
 * overlap, and fencing tokens that must grow strictly from one holder to the next.
 *
 * <p>Call {@link #enter(long)} only while holding the lock; the lock's own happens-before
 * (through the client's I/O threads and Redis) is what makes the plain fields safe.
 */
final class CriticalSection {

    private long counter;
    private long lastToken = Long.MIN_VALUE;

    /**
     * Counts one holder and checks its token.
     *
     * @throws IllegalStateException if the token is not above the previous holder's
     */
    void enter(long token) {
        counter++;
        if (token == LockAdapter.NO_TOKEN) {
            return;
        }
        if (token <= lastToken) {
            throw new IllegalStateException("fencing token went backwards: " + token + " after " + lastToken);
        }
        lastToken = token;
    }

    /**
     * @throws IllegalStateException if the counter lost updates, i.e. two holders overlapped
     */
    void verify(long acquisitions) {
        if (counter != acquisitions) {
            throw new IllegalStateException("mutual exclusion broken: " + acquisitions
                    + " acquisitions but the protected counter reads " + counter);
        }
    }
}
