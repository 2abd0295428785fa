package dev.leasehold.shedlock;

import dev.leasehold.LockOptions;
import net.javacrumbs.shedlock.core.LockConfiguration;

import java.time.Duration;

/**
 * ShedLock's durations as Leasehold's options: {@code lockAtMostFor} is a fixed lease,
 * {@code lockAtLeastFor} is {@link LockOptions#holdAtLeast(Duration)}.
 */
final class ShedLockDurations {

    /** The shortest positive hold-at-least Leasehold accepts. */
    private static final Duration MIN_HOLD = Duration.ofMillis(1);

    private ShedLockDurations() {
    }

    /** The options a lock of this configuration is held with. */
    static LockOptions options(LockConfiguration configuration) {
        LockOptions options = LockOptions.fixedLease(leaseTime(configuration.getName(), configuration.getLockAtMostFor()));
        Duration atLeast = configuration.getLockAtLeastFor();
        if (atLeast.isNegative() || atLeast.isZero()) {
            return options;
        }
        // Never more than the lease time: lockAtLeastFor <= lockAtMostFor <= the rounded lease time.
        return options.holdAtLeast(atLeast.compareTo(MIN_HOLD) < 0 ? MIN_HOLD : atLeast);
    }

    /**
     * The server-side lease time for {@code lockAtMostFor}: itself, or {@link LockOptions#MIN_TTL} when
     * shorter (below it the drift allowance would leave the holder no valid lease at all).
     *
     * @throws IllegalArgumentException if lockAtMostFor exceeds {@link LockOptions#MAX_TTL}
     */
    static Duration leaseTime(String name, Duration lockAtMostFor) {
        if (lockAtMostFor.compareTo(LockOptions.MAX_TTL) > 0) {
            throw new IllegalArgumentException("lockAtMostFor of lock '" + name + "' is " + lockAtMostFor
                    + ", longer than the longest lease Leasehold grants (LockOptions.MAX_TTL, " + LockOptions.MAX_TTL
                    + "): use a shorter lockAtMostFor, and extend the lock (LockExtender) if the job may run longer");
        }
        return lockAtMostFor.compareTo(LockOptions.MIN_TTL) < 0 ? LockOptions.MIN_TTL : lockAtMostFor;
    }

    /**
     * Checks the arguments of an extension as ShedLock's {@link LockConfiguration} checks a lock's.
     *
     * @throws IllegalArgumentException if either is null or negative, lockAtLeastFor exceeds
     *                                  lockAtMostFor, or lockAtMostFor exceeds {@link LockOptions#MAX_TTL}
     */
    static void checkExtension(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        if (lockAtMostFor == null || lockAtLeastFor == null) {
            throw new IllegalArgumentException("extending lock '" + name + "' needs lockAtMostFor and lockAtLeastFor, got "
                    + lockAtMostFor + " and " + lockAtLeastFor);
        }
        if (lockAtMostFor.isNegative() || lockAtLeastFor.isNegative()) {
            throw new IllegalArgumentException("extending lock '" + name + "': lockAtMostFor (" + lockAtMostFor
                    + ") and lockAtLeastFor (" + lockAtLeastFor + ") must not be negative");
        }
        if (lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
            throw new IllegalArgumentException("extending lock '" + name + "': lockAtLeastFor (" + lockAtLeastFor
                    + ") is longer than lockAtMostFor (" + lockAtMostFor + ")");
        }
        leaseTime(name, lockAtMostFor);
    }
}
