package dev.leasehold.redlock;

import dev.leasehold.engine.LeaseEngine;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The tuning of one Redlock client, validated by {@link RedlockLocks.Builder}.
 *
 * @param nodeTimeout    bound on each single node call; {@code null} for the default, 5 % of the
 *                       lock's ttl (capped at a third of the operation timeout)
 * @param retryCount     extra rounds one attempt makes when a round was inconclusive
 * @param retryDelay     the fixed part of the pause before such a retry
 * @param retryJitter    the random part added to it, uniform in {@code [0, retryJitter]}
 * @param fenceRetention how long each node keeps its fencing counter after its last write
 * @param engine         the waiting engine's operation timeout and re-check interval
 */
record RedlockSettings(Duration nodeTimeout, int retryCount, Duration retryDelay, Duration retryJitter,
                       Duration fenceRetention, LeaseEngine.Settings engine) {

    /**
     * The per-node timeout for a call on a lock with this ttl. A third of the operation timeout
     * at most, so one round (acquire, then token write-back or clean-up) fits in the engine's
     * bound on a single attempt.
     */
    Duration nodeTimeout(Duration ttl) {
        if (nodeTimeout != null) {
            return nodeTimeout;
        }
        Duration share = ttl.dividedBy(20);
        return share.compareTo(maxNodeTimeout()) < 0 ? share : maxNodeTimeout();
    }

    /** The per-node timeout for calls that carry no ttl (release, clean-up). */
    Duration nodeTimeoutWithoutTtl() {
        return nodeTimeout != null ? nodeTimeout : maxNodeTimeout();
    }

    Duration maxNodeTimeout() {
        return engine.operationTimeout().dividedBy(3);
    }

    /** A fresh random pause before a retry: {@code retryDelay + uniform[0, retryJitter]}. */
    long nextRetryDelayNanos() {
        return retryDelay.toNanos() + ThreadLocalRandom.current().nextLong(retryJitter.toNanos() + 1);
    }
}
