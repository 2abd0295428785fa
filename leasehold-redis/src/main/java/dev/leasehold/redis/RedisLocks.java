package dev.leasehold.redis;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.redis.internal.ClusterConnector;
import dev.leasehold.redis.internal.ClusterUri;
import dev.leasehold.redis.internal.LettuceConnections;
import dev.leasehold.redis.internal.RedisEndpoint;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.RedisVersion;
import dev.leasehold.redis.internal.ServerDeployment;
import dev.leasehold.spi.Args;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
 * {@code rediss://} for TLS. ACL users are given as {@code redis://user:password@host}. A master
 * watched by Sentinels is {@code redis-sentinel://[password@]host:26379[,host2:26379]#mymaster}
 * ({@code rediss-sentinel://} for TLS; the password is the master's): the client asks the Sentinels
 * for the master and asks again whenever its connection drops, so it follows a failover without a
 * restart. A Cluster is reached with {@link #connectCluster(String...)}, or from one string as
 * {@code redis-cluster://[[user]:password@]host:7000[,host2:7001]} ({@code rediss-cluster://} for
 * TLS; the credentials apply to every node), the form a command-line option or an environment
 * variable takes. Passwords never appear in messages or logs.
 */
public final class RedisLocks {

    /** How long the fence key outlives the last acquisition when not configured. */
    public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofMinutes(10);

    private RedisLocks() {
    }

    /**
     * Connects to the server, Sentinel group or Cluster at {@code uri} with default settings.
     *
     * @throws IllegalArgumentException if the URI is null, empty or malformed
     * @throws LockUnavailableException if the server cannot be reached, rejects the credentials or
     *                                  is older than Redis 5.0; nothing (thread, connection) is
     *                                  left open then
     */
    public static RedisLockClient connect(String uri) {
        return builder().uri(uri).connect();
    }

    /**
     * Connects to the Redis Cluster that {@code seedUris} belong to (one reachable seed is enough;
     * the client reads the whole topology from it), with default settings.
     *
     * @throws IllegalArgumentException if no seed is given, or one is null, malformed or a Sentinel URI
     * @throws LockUnavailableException if no seed can be reached, a seed is a standalone server rather
     *                                  than a Cluster node, or a master is older than Redis 5.0;
     *                                  nothing is left open then
     */
    public static RedisLockClient connectCluster(String... seedUris) {
        return builder().cluster(seedUris).connect();
    }

    /** Settings for a {@link RedisLockClient}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link RedisLockClient}; each setter validates its argument at once. */
    public static final class Builder extends RedisClientBuilder<Builder> {

        private RedisEndpoint endpoint;
        private List<RedisEndpoint> clusterSeeds;
        private RedisClient existingClient;
        private String keyPrefix = "";

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * The server, as {@code redis://} or {@code rediss://} URI; the master of a Sentinel
         * group as {@code redis-sentinel://} or {@code rediss-sentinel://} URI; or a Cluster as
         * {@code redis-cluster://} or {@code rediss-cluster://} URI, which is the same as
         * {@link #cluster(String...)} with one seed per listed node (see {@link RedisLocks}).
         * Replaces a {@code uri} or {@code cluster} given before.
         *
         * @throws IllegalArgumentException if the URI is null, malformed, a Sentinel URI without
         *                                  the master's name after {@code #}, or a Cluster URI with a
         *                                  database or an empty seed
         */
        public Builder uri(String uri) {
            if (ClusterUri.matches(uri)) {
                return cluster(ClusterUri.seeds(uri).toArray(String[]::new));
            }
            this.endpoint = RedisEndpoint.parse(uri);
            this.clusterSeeds = null;
            return this;
        }

        /**
         * A Redis Cluster, by some of its nodes as {@code redis://} or {@code rediss://} URIs (the
         * client discovers the others). Every lock's keys share one hash slot (see
         * {@link dev.leasehold.redis.internal.LockKeys}); renewals are batched per slot; waiters use
         * sharded pub/sub when every master runs Redis 7 or later. Replaces a {@link #uri} given before.
         *
         * @throws IllegalArgumentException if no seed is given, or one is null, malformed, a Sentinel URI
         *                                  or names a database other than 0 (in its path or query)
         */
        public Builder cluster(String... seedUris) {
            if (seedUris == null || seedUris.length == 0) {
                throw new IllegalArgumentException("cluster needs at least one seed URI, e.g. redis://localhost:7000");
            }
            List<RedisEndpoint> seeds = new ArrayList<>();
            for (String seed : seedUris) {
                RedisEndpoint parsed = RedisEndpoint.parse(seed);
                if (parsed.sentinel()) {
                    throw new IllegalArgumentException("a Cluster seed must be a redis:// or rediss:// URI of a Cluster "
                            + "node, not a Sentinel URI; use uri(...) for a Sentinel group");
                }
                if (parsed.uri().getDatabase() != 0) {
                    // Lettuce reads it from the path and from ?database= or ?db=; each would be ignored.
                    throw new IllegalArgumentException("a Cluster seed takes no database (a Cluster has only database 0): "
                            + "drop the /N path and any database= or db= query option");
                }
                seeds.add(parsed);
            }
            this.clusterSeeds = List.copyOf(seeds);
            this.endpoint = null;
            return this;
        }

        /** The server, as a Lettuce {@link RedisURI}. Replaces a {@code uri} or {@code cluster} given before. */
        public Builder uri(RedisURI uri) {
            this.endpoint = RedisEndpoint.of(uri);
            this.clusterSeeds = null;
            return this;
        }

        /**
         * Uses an existing Lettuce client (its resources and options) instead of creating one.
         * Leasehold opens its own connections on it, closes them on {@code close()}, and leaves
         * the client itself running.
         */
        public Builder client(RedisClient client) {
            this.existingClient = Args.notNull("client", client);
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
            if (clusterSeeds != null) {
                if (existingClient != null) {
                    throw new IllegalStateException("client(RedisClient) is a single-server client; a Cluster needs "
                            + "Leasehold's own cluster client: drop client(...) or use uri(...)");
                }
                return new RedisLockClient(ClusterConnector.connect(clusterSeeds, operationTimeout(),
                        trustedCertificate()), engineSettings(), fenceRetention(), keyPrefix);
            }
            if (endpoint == null) {
                throw new IllegalStateException("no Redis URI given; call uri(\"redis://host:port\") or "
                        + "cluster(\"redis://host:port\", ...) first");
            }
            boolean ownsClient = existingClient == null;
            RedisClient client = ownsClient ? RedisClient.create() : existingClient;
            Duration operationTimeout = operationTimeout();
            if (ownsClient) {
                ClientOptions options = LettuceConnections.clientOptions(operationTimeout, trustedCertificate());
                if (endpoint.sentinel()) {
                    // During a failover the connections reconnect to the promoted master: calls wait
                    // for that (each still bounded by the operation timeout) rather than fail at once.
                    options = options.mutate().disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                            .build();
                }
                client.setOptions(options);
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
                return new RedisLockClient(new ServerDeployment(client, bounded, connection,
                        ownsClient ? operationTimeout : null), engineSettings(), fenceRetention(), keyPrefix);
            } catch (RuntimeException e) {
                if (ownsClient) {
                    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                }
                throw RedisErrors.translate(endpoint.describe(), "connect", e);
            }
        }
    }
}
