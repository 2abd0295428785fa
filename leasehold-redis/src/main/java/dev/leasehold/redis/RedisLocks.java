package dev.leasehold.redis;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.redis.internal.LettuceConnections;
import dev.leasehold.redis.internal.RedisEndpoint;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.RedisVersion;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;

/**
 * Entry point of the Redis backend.
 *
 * <pre>{@code
 * try (RedisLockClient locks = RedisLocks.connect("redis://localhost:6379")) {
 *     try (Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5))) {
 *         store.write(order, lease.token());
 *     }
 * }
 * }</pre>
 *
 * <p>URIs follow Lettuce's syntax: {@code redis://[[user]:password@]host[:port][/database]}, and
 * {@code rediss://} for TLS. ACL users are given as {@code redis://user:password@host}. Passwords
 * never appear in messages or logs.
 */
public final class RedisLocks {

    /** How long the fence key outlives the last acquisition when not configured. */
    public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofMinutes(10);

    private RedisLocks() {
    }

    /**
     * Connects to the server at {@code uri} with default settings.
     *
     * @throws IllegalArgumentException if the URI is null, empty or malformed
     * @throws LockUnavailableException if the server cannot be reached, rejects the credentials or
     *                                  is older than Redis 5.0; nothing (thread, connection) is
     *                                  left open then
     */
    public static RedisLockClient connect(String uri) {
        return builder().uri(uri).connect();
    }

    /** Settings for a {@link RedisLockClient}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link RedisLockClient}; each setter validates its argument at once. */
    public static final class Builder extends RedisClientBuilder<Builder> {

        private RedisEndpoint endpoint;
        private RedisClient existingClient;
        private String keyPrefix = "";

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The server, as {@code redis://} or {@code rediss://} URI. */
        public Builder uri(String uri) {
            this.endpoint = RedisEndpoint.parse(uri);
            return this;
        }

        /** The server, as a Lettuce {@link RedisURI}. */
        public Builder uri(RedisURI uri) {
            this.endpoint = RedisEndpoint.of(uri);
            return this;
        }

        /**
         * Uses an existing Lettuce client (its resources and options) instead of creating one.
         * Leasehold opens its own connections on it, closes them on {@code close()}, and leaves
         * the client itself running.
         */
        public Builder client(RedisClient client) {
            if (client == null) {
                throw new IllegalArgumentException("client must not be null");
            }
            this.existingClient = client;
            return this;
        }

        /**
         * A prefix for every key of every lock of this client (none by default), e.g.
         * {@code "lock:"}: lock {@code order:777} then lives at {@code lock:order:777}, clear of an
         * application that keeps its own data at {@code order:777}. Without a prefix, the lock key
         * is the name itself, so a plain {@code SET name value NX PX} lock of another program
         * excludes Leasehold's and the other way round. The prefix becomes part of each lock's
         * name: {@code DistributedLock.name()}, {@code Lease.lockName()} and messages show it.
         *
         * @throws IllegalArgumentException if it is null, longer than 256 characters, or holds a
         *                                  brace (it would change the names' Cluster hash tags) or a
         *                                  glob character ({@code * ? [ ] \\})
         */
        public Builder keyPrefix(String prefix) {
            if (prefix == null || prefix.length() > 256 || prefix.chars().anyMatch(c -> "{}*?[]\\".indexOf(c) >= 0)) {
                throw new IllegalArgumentException("keyPrefix must be at most 256 characters without braces (they "
                        + "would change every name's Cluster hash tag) or glob characters (list() matches under "
                        + "the prefix), e.g. \"lock:\"; got " + (prefix == null ? "null" : "'" + prefix + "'"));
            }
            this.keyPrefix = prefix;
            return this;
        }

        /**
         * Connects and checks the server answers, accepts the credentials, and runs Redis 5.0 or
         * later (checked with {@code INFO server} when the user may run it).
         *
         * @throws IllegalStateException if no URI was given
         * @throws LockUnavailableException if the server cannot be reached, rejects the
         *                                  credentials or is older than Redis 5.0; nothing is
         *                                  left open then
         */
        public RedisLockClient connect() {
            if (endpoint == null) {
                throw new IllegalStateException("no Redis URI given; call uri(\"redis://host:port\") first");
            }
            boolean ownsClient = existingClient == null;
            RedisClient client = ownsClient ? RedisClient.create() : existingClient;
            Duration operationTimeout = operationTimeout();
            if (ownsClient) {
                client.setOptions(LettuceConnections.clientOptions(operationTimeout, trustedCertificate()));
            }
            RedisEndpoint bounded = endpoint.withHandshakeTimeout(operationTimeout);
            try {
                StatefulRedisConnection<String, String> connection = LettuceConnections.connect(client, bounded).join();
                try {
                    RedisVersion.require(connection, endpoint.describe(), operationTimeout);
                } catch (RuntimeException e) {
                    connection.close();
                    throw e;
                }
                return new RedisLockClient(bounded, client, ownsClient, connection, new RedisScripts(),
                        engineSettings(), fenceRetention(), keyPrefix);
            } catch (RuntimeException e) {
                if (ownsClient) {
                    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                }
                throw RedisErrors.translate(endpoint.describe(), "connect", e);
            }
        }
    }
}
