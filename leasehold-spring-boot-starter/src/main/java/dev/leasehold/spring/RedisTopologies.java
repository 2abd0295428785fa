package dev.leasehold.spring;

import dev.leasehold.redis.RedisLocks;
import io.lettuce.core.RedisURI;

import java.util.List;

/**
 * Spring Boot's Sentinel and Cluster properties as a {@link RedisLocks.Builder} server. As in Boot,
 * Sentinel properties win over Cluster ones, and both over {@code url} and {@code host}.
 *
 * <p>Sentinel: {@code sentinel.master} and {@code sentinel.nodes} name the group; the data nodes
 * authenticate with {@code spring.data.redis.username/password}, the Sentinels with
 * {@code sentinel.username/password}; {@code database} and {@code ssl.enabled} apply. Cluster:
 * {@code cluster.nodes} are the seeds, authenticated with {@code spring.data.redis.username/password},
 * over TLS with {@code ssl.enabled}; a Cluster has only database 0, so another {@code database} is
 * refused; {@code cluster.max-redirects} is not used (Leasehold's cluster client keeps Lettuce's
 * limit of 5 redirections, and its scripts touch one slot each).
 */
final class RedisTopologies {

    private static final String SPRING = SpringDataRedisProperties.PREFIX;
    static final String SENTINEL_MASTER = SPRING + ".sentinel.master";
    static final String SENTINEL_NODES = SPRING + ".sentinel.nodes";
    static final String CLUSTER_NODES = SPRING + ".cluster.nodes";

    private RedisTopologies() {
    }

    /**
     * Sets a Sentinel group or a Cluster on the builder when the properties name one.
     *
     * @return the property that named the server, or null when neither is configured
     * @throws LeaseholdConfigurationException naming the property when the master's name or the
     *         nodes are missing or malformed, a username lacks its password, or a Cluster is given a
     *         database other than 0
     */
    static String apply(RedisLocks.Builder builder, SpringDataRedisProperties spring, boolean ssl) {
        SpringDataRedisProperties.Sentinel sentinel = spring.sentinel();
        if (sentinel != null) {
            builder.uri(sentinel(sentinel, spring, ssl));
            return SENTINEL_MASTER;
        }
        if (spring.cluster() != null) {
            cluster(builder, clusterSeeds(spring, ssl));
            return CLUSTER_NODES;
        }
        return null;
    }

    private static RedisURI sentinel(SpringDataRedisProperties.Sentinel sentinel, SpringDataRedisProperties spring,
                                     boolean ssl) {
        if (sentinel.master() == null || sentinel.master().isBlank()) {
            throw new LeaseholdConfigurationException(SENTINEL_MASTER, "is missing: name the master the Sentinels "
                    + "watch (their 'sentinel monitor' name, e.g. mymaster)", null);
        }
        List<RedisNode> nodes = RedisNode.parseAll(SENTINEL_NODES, sentinel.nodes());
        RedisCredentials sentinels = RedisCredentials.of(SPRING + ".sentinel", sentinel.username(),
                sentinel.password());
        RedisCredentials data = RedisCredentials.of(SPRING, spring.username(), spring.password());
        RedisURI.Builder uri = RedisURI.builder().withSentinelMasterId(sentinel.master().trim());
        for (RedisNode node : nodes) {
            uri.withSentinel(sentinels.applyTo(RedisURI.builder().withHost(node.host()).withPort(node.port()))
                    .withSsl(ssl).build());
        }
        if (spring.database() != null) {
            try {
                uri.withDatabase(spring.database());
            } catch (IllegalArgumentException refused) {
                throw new LeaseholdConfigurationException(SPRING + ".database", refused.getMessage(), refused);
            }
        }
        return data.applyTo(uri).withSsl(ssl).build();
    }

    private static String[] clusterSeeds(SpringDataRedisProperties spring, boolean ssl) {
        if (spring.database() != null && spring.database() != 0) {
            throw new LeaseholdConfigurationException(SPRING + ".database", "a Redis Cluster has only database 0; "
                    + "remove the setting or set it to 0", null);
        }
        List<RedisNode> nodes = RedisNode.parseAll(CLUSTER_NODES, spring.cluster().nodes());
        String prefix = (ssl ? "rediss://" : "redis://") + RedisCredentials.of(SPRING, spring.username(),
                spring.password()).userInfo();
        return nodes.stream().map(node -> prefix + node.uriHost() + ":" + node.port()).toArray(String[]::new);
    }

    private static void cluster(RedisLocks.Builder builder, String[] seeds) {
        try {
            builder.cluster(seeds);
        } catch (IllegalArgumentException refused) {
            // The builder's message never repeats a seed, which may carry the password.
            throw new LeaseholdConfigurationException(CLUSTER_NODES, refused.getMessage(), refused);
        }
    }
}
