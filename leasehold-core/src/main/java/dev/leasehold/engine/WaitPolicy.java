package dev.leasehold.engine;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a waiter sleeps between attempts when no release notification wakes it: never longer
 * than the holder's remaining ttl (the key is gone then), never longer than a jittered cap (so a
 * lost notification costs at most about the cap, never a whole ttl), and never past the wait.
 * The jitter, between half the cap and the cap, keeps many waiters from re-checking in lockstep.
 */
final class WaitPolicy {

    private static final long EXPIRY_SLACK_NANOS = Duration.ofMillis(1).toNanos();

    private final long maxRecheckNanos;

    WaitPolicy(Duration maxRecheck) {
        this.maxRecheckNanos = maxRecheck.toNanos();
    }

    long recheckDelayNanos(Duration holderRemaining, long untilWaitDeadlineNanos) {
        long cap = maxRecheckNanos / 2 + ThreadLocalRandom.current().nextLong(maxRecheckNanos / 2 + 1);
        long delay = cap;
        if (holderRemaining != null && !holderRemaining.isNegative()) {
            delay = Math.min(delay, holderRemaining.toNanos() + EXPIRY_SLACK_NANOS);
        }
        return Math.max(0, Math.min(delay, untilWaitDeadlineNanos));
    }
}
