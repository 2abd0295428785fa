package dev.leasehold;

/**
 * The thread was interrupted while it waited for a lock. The attempt was cleaned up
 * (whatever it may have taken on the server is released) and the thread's interrupt
 * flag is set again, so code further up still sees the interrupt.
 */
public class LockInterruptedException extends LeaseholdException {

    public LockInterruptedException(String lockName, InterruptedException cause) {
        super("Interrupted while waiting for lock '" + lockName + "'; the attempt was cancelled", cause);
    }
}
