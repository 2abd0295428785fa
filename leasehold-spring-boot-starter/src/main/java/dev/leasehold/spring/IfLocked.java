package dev.leasehold.spring;

/** What a {@link Locked} method does when its lock cannot be had within {@link Locked#waitFor()}. */
public enum IfLocked {

    /**
     * The call throws {@link dev.leasehold.LockTimeoutException}, whose message names the method
     * and the lock; the method does not run.
     */
    FAIL,
    /**
     * The call returns without running the method, as a scheduled job that another machine is
     * running wants: {@code null}, an empty {@link java.util.Optional}, or a completed future whose
     * value is {@code null}, as the return type calls for (a primitive return type other than
     * {@code void} is refused at startup). Logged at DEBUG only, and counted in
     * {@code leasehold.acquire.wait} with {@code outcome=skipped}. A backend that cannot be reached
     * is no skip: the call still throws {@link dev.leasehold.LockUnavailableException}. A lock client
     * already closed (a call under way while the application shuts down) is one: logged at DEBUG.
     */
    SKIP
}
