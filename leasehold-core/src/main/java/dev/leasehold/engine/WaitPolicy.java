package dev.leasehold.engine;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a waiter sleeps between attempts when no release notification wakes it: never longer
 * than the holder's remaining ttl (the key is gone then), never longer than a jittered cap (so a
 * lost notification costs at most about the cap, never a whole ttl; the cap is the smaller of
 * {@code maxRecheck} and a third of the waiter's ttl), and never past the wait.
 * The jitter, between half the cap and the cap, keeps many waiters from re-checking in lockstep.
 */
final class WaitPolicy {

    private static final long EXPIRY_SLACK_NANOS = Duration.ofMillis(1).toNanos();

    private final long maxRecheckNanos;

    WaitPolicy(Duration maxRecheck) {
        this.maxRecheckNanos = maxRecheck.toNanos();
    }

    /**
     * @param ttl the waiter's own lease ttl: a waiter re-checks at least every ttl/3, so that its
     *            last attempt, from which a handoff's lease is counted, is never more than that old
     */
    long recheckDelayNanos(Duration holderRemaining, long untilWaitDeadlineNanos, Duration ttl) {
        long capNanos = Math.min(maxRecheckNanos, ttl.toNanos() / 3);
        long cap = capNanos / 2 + ThreadLocalRandom.current().nextLong(capNanos / 2 + 1);
        long delay = cap;
        if (holderRemaining != null && !holderRemaining.isNegative()) {
            delay = Math.min(delay, holderRemaining.toNanos() + EXPIRY_SLACK_NANOS);
        }
        return Math.max(0, Math.min(delay, untilWaitDeadlineNanos));
    }
}
