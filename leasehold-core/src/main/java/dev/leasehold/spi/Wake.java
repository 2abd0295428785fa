package dev.leasehold.spi;

/** Why a waiting acquisition was woken by its {@link ReleaseSignal}. */
public sealed interface Wake {

    /** The lock may be free: try again. */
    Wake RETRY = new Retry();

    /** The lock may be free: try again. */
    record Retry() implements Wake {
    }

    /**
     * The releasing holder's script already handed the lock to this waiter, with this token: the
     * waiter holds it without another round trip (a fair lock's handoff).
     *
     * @param token the lease's fencing token
     * @param stamp the {@link AcquireRequest#stamp()} of the waiter's last attempt that the
     *              backend had processed before the handoff
     */
    record Granted(long token, long stamp) implements Wake {
    }
}
