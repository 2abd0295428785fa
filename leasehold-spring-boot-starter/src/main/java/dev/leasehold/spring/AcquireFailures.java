package dev.leasehold.spring;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.LockUnavailableException;

/**
 * A {@link Locked} call whose lock could not be had, thrown again on the caller's thread with a
 * one-line message that names the method and the lock. The engine ends a wait on its own threads
 * (a client I/O thread, its scheduler), so the exception it made has only their frames; a scheduled
 * task's error log then showed a trace of Netty frames and no application frame. The new exception
 * has the same type and data, the caller's frames, and the transport error (if any) as its cause.
 */
final class AcquireFailures {

    private AcquireFailures() {
    }

    /**
     * @param failure the acquire's exception
     * @param method  the method, as {@link LockNameExpression#describe} writes it
     * @param name    the lock name this call evaluated
     * @return the exception to throw: of the same class as {@code failure} (one of a subclass,
     *         unknown here, is returned unchanged)
     */
    static LeaseholdException named(LeaseholdException failure, String method, String name) {
        if (failure.getClass() == LockTimeoutException.class) {
            LockTimeoutException timeout = (LockTimeoutException) failure;
            return new LockTimeoutException("@Locked " + method + " did not run: lock '" + name
                    + "' was not acquired within " + timeout.waited() + " (" + timeout.heldBy()
                    + "); wait longer (waitFor), or skip quietly with ifLocked = SKIP", timeout);
        }
        if (failure.getClass() == LockUnavailableException.class) {
            LockUnavailableException unavailable = (LockUnavailableException) failure;
            return new LockUnavailableException("@Locked " + method + " did not run: lock '" + name
                    + "' could not be acquired: " + firstLine(unavailable.getMessage()), unavailable.failures());
        }
        return failure;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no reason given";
        }
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end).stripTrailing();
    }
}
