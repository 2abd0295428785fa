package dev.leasehold.redlock;

import dev.leasehold.spi.Args;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.redis.RedisClientBuilder;
import dev.leasehold.redis.internal.RedisEndpoint;
import dev.leasehold.redis.RedisLocks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Entry point of the Redlock backend: one lock spread over N independent Redis masters.
 *
 * <pre>{@code
 * try (RedlockLockClient locks = RedlockLocks.connect(
 *         "redis://10.0.0.1:6379", "redis://10.0.0.2:6379", "redis://10.0.0.3:6379",
 *         "redis://10.0.0.4:6379", "redis://10.0.0.5:6379")) {
 *     try (Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5))) {
 *         store.write(order, lease.token());
 *     }
 * }
 * }</pre>
 *
 * <p>URIs follow Lettuce's syntax, as for {@link RedisLocks}: {@code redis://[[user]:password@]host[:port][/database]},
 * {@code rediss://} for TLS. Passwords never appear in messages or logs. The guarantees and the
 * assumptions they rest on are those of {@link RedlockLockClient}.
 */
public final class RedlockLocks {

    /** Fewest nodes accepted: with fewer, one failure already costs the majority. */
    public static final int MIN_NODES = 3;
    /** Extra rounds one attempt makes after an inconclusive round, when not configured. */
    public static final int DEFAULT_RETRY_COUNT = 3;
    /** Fixed part of the pause before such a retry, when not configured. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(20);
    /** Random part added to it, uniform in {@code [0, jitter]}, when not configured. */
    public static final Duration DEFAULT_RETRY_JITTER = Duration.ofMillis(80);

    private RedlockLocks() {
    }

    /**
     * Connects to the nodes at {@code uris} with default settings.
     *
     * @throws IllegalArgumentException if fewer than {@link #MIN_NODES} URIs are given, one is
     *                                  malformed, or a node is listed twice
     * @throws LockUnavailableException if fewer than a majority of nodes can be reached, or a node
     *                                  rejects the credentials; nothing is left open then
     */
    public static RedlockLockClient connect(String... uris) {
        return builder().uris(uris).connect();
    }

    /** Settings for a {@link RedlockLockClient}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link RedlockLockClient}; each setter validates its argument at once. */
    public static final class Builder extends RedisClientBuilder<Builder> {

        private List<RedisEndpoint> endpoints;
        private Duration nodeTimeout;
        private int retryCount = DEFAULT_RETRY_COUNT;
        private Duration retryDelay = DEFAULT_RETRY_DELAY;
        private Duration retryJitter = DEFAULT_RETRY_JITTER;

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * The nodes: independent Redis masters (not replicas of each other), as {@code redis://} or
         * {@code rediss://} URIs. An odd number is best: 5 nodes survive 2 failures, 6 too.
         *
         * @throws IllegalArgumentException if fewer than {@link #MIN_NODES} are given, one is
         *                                  malformed (the message never echoes it), or one is listed twice
         */
        public Builder uris(String... uris) {
            if (uris == null || uris.length < MIN_NODES) {
                throw new IllegalArgumentException("Redlock needs at least " + MIN_NODES + " independent Redis masters, got "
                        + (uris == null ? 0 : uris.length) + "; for a single server use RedisLocks");
            }
            List<RedisEndpoint> parsed = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (String uri : uris) {
                RedisEndpoint endpoint = RedisEndpoint.parse(uri);
                if (!seen.add(endpoint.describe())) {
                    throw new IllegalArgumentException("node " + endpoint.describe() + " is listed twice; "
                            + "each vote must come from an independent master");
                }
                parsed.add(endpoint);
            }
            this.endpoints = List.copyOf(parsed);
            return this;
        }

        /**
         * Bound on each single node call. By default 5 % of the lock's ttl (so a slow node cannot
         * spend the validity), at most a third of the operation timeout. Must be small against the
         * ttl: a majority must answer within the ttl minus the drift.
         *
         * @throws IllegalArgumentException if outside [1 ms, 1 min]
         */
        public Builder nodeTimeout(Duration timeout) {
            this.nodeTimeout = Args.within("nodeTimeout", timeout, Duration.ofMillis(1), Duration.ofMinutes(1));
            return this;
        }

        /**
         * How many extra rounds one attempt makes when a round was inconclusive: a split vote
         * between contenders, a validity spent before the answers came, or a token write-back that
         * did not reach a majority (default {@value #DEFAULT_RETRY_COUNT}). Retries stop early
         * rather than overrun the operation timeout. Rounds where a majority reports another
         * holder are not retried here: the engine waits for that holder.
         *
         * @throws IllegalArgumentException if outside [0, 100]
         */
        public Builder retryCount(int count) {
            this.retryCount = Args.within("retryCount", count, 0, 100);
            return this;
        }

        /**
         * The pause before a retry: {@code delay} plus a uniformly random part of {@code jitter}
         * (default 20 ms + [0, 80 ms]). The randomness keeps contenders that split the vote from
         * colliding again.
         *
         * @throws IllegalArgumentException if either is outside [0, 10 s]
         */
        public Builder retryDelay(Duration delay, Duration jitter) {
            this.retryDelay = Args.within("retryDelay", delay, Duration.ZERO, Duration.ofSeconds(10));
            this.retryJitter = Args.within("retryJitter", jitter, Duration.ZERO, Duration.ofSeconds(10));
            return this;
        }

        /**
         * Connects to every node and checks a majority answers (and that none rejects the credentials).
         *
         * @throws IllegalStateException if no URIs were given
         * @throws IllegalArgumentException if the node timeout exceeds a third of the operation timeout
         * @throws LockUnavailableException if fewer than a majority of nodes can be reached, or a node
         *                                  rejects the credentials; nothing is left open then
         */
        public RedlockLockClient connect() {
            if (endpoints == null) {
                throw new IllegalStateException("no Redis URIs given; call uris(\"redis://host1:6379\", ...) first");
            }
            Duration operationTimeout = operationTimeout();
            Duration maxNodeTimeout = operationTimeout.dividedBy(3);
            if (nodeTimeout != null && nodeTimeout.compareTo(maxNodeTimeout) > 0) {
                throw new IllegalArgumentException("nodeTimeout must be at most a third of operationTimeout ("
                        + maxNodeTimeout + "), got " + nodeTimeout + ", so one round fits in one attempt");
            }
            RedlockSettings settings = new RedlockSettings(nodeTimeout, retryCount, retryDelay, retryJitter,
                    fenceRetention(), engineSettings());
            List<RedisEndpoint> bounded = endpoints.stream()
                    .map(endpoint -> endpoint.withHandshakeTimeout(operationTimeout)).toList();
            return RedlockLockClient.open(bounded, settings, trustedCertificate());
        }
    }
}
