package dev.leasehold.redis.internal;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Connects to a Redis Cluster from seed nodes: reads the topology, checks every master runs Redis
 * {@link RedisVersion#MINIMUM_MAJOR} or later, and picks sharded pub/sub when every master runs
 * Redis 7 or later.
 */
public final class ClusterConnector {

    /** How often the topology is re-read even when no redirection or reconnect asks for it. */
    static final Duration PERIODIC_REFRESH = Duration.ofSeconds(10);

    private ClusterConnector() {
    }

    /** {@code redis-cluster://h1:p1,h2:p2} ({@code rediss-cluster://} with TLS): the seeds, without credentials. */
    public static String describe(List<RedisEndpoint> seeds) {
        boolean tls = seeds.stream().anyMatch(e -> e.uri().isSsl());
        return (tls ? "rediss-cluster://" : "redis-cluster://")
                + seeds.stream().map(e -> e.uri().getHost() + ":" + e.uri().getPort()).collect(Collectors.joining(","));
    }

    /**
     * Makes a cluster client of its own (shut down with the deployment) and connects it.
     *
     * @throws LockUnavailableException if no seed answers, a seed is not a Cluster node, or a master
     *                                  is older than Redis 5.0; nothing is left open then
     */
    public static ClusterDeployment connect(List<RedisEndpoint> seeds, Duration operationTimeout,
                                            Path trustedCertificate) {
        String description = describe(seeds);
        List<RedisURI> uris = seeds.stream().map(e -> e.withHandshakeTimeout(operationTimeout).uri()).toList();
        RedisClusterClient client = RedisClusterClient.create(uris);
        // Node connections open lazily, on the first call routed to a node (after a failover or a
        // slot move, too): calls must wait for them rather than be rejected as "not connected".
        // Every call stays bounded by the command timeout.
        client.setOptions(ClusterClientOptions.builder(
                        LettuceConnections.clientOptions(operationTimeout, trustedCertificate))
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .enablePeriodicRefresh(PERIODIC_REFRESH)
                        .build())
                .build());
        StatefulRedisClusterConnection<String, String> connection = null;
        try {
            // The async connect needs the topology read first (the blocking connect reads it itself).
            client.refreshPartitionsAsync().toCompletableFuture().get(operationTimeout.toNanos() * 2, TimeUnit.NANOSECONDS);
            connection = client.connectAsync(StringCodec.UTF8).get(operationTimeout.toNanos() * 2, TimeUnit.NANOSECONDS);
            boolean sharded = true;
            for (RedisClusterNode node : connection.getPartitions()) {
                if (!node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                    continue;
                }
                String where = node.getUri().getHost() + ":" + node.getUri().getPort();
                String info = connection.getConnectionAsync(node.getNodeId()).thenCompose(c -> c.async().info("server"))
                        .get(operationTimeout.toNanos(), TimeUnit.NANOSECONDS);
                int major = RedisVersion.major(info);
                if (major >= 0 && major < RedisVersion.MINIMUM_MAJOR) {
                    throw new LockUnavailableException("Redis Cluster node " + where + " runs Redis " + major
                            + ", and Leasehold needs Redis " + RedisVersion.MINIMUM_MAJOR + ".0 or later; upgrade it",
                            new NodeFailure(where, NodeFailure.Kind.ERROR, null));
                }
                sharded &= major >= 7;
            }
            return new ClusterDeployment(client, description, connection, sharded,
                    operationTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw cleanUp(client, connection, description, e);
        } catch (Exception e) {
            throw cleanUp(client, connection, description, e);
        }
    }

    private static RuntimeException cleanUp(RedisClusterClient client,
                                            StatefulRedisClusterConnection<String, String> connection,
                                            String description, Throwable error) {
        if (connection != null) {
            connection.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        if (error instanceof LockUnavailableException unavailable) {
            return unavailable;
        }
        if (String.valueOf(rootMessage(error)).contains("cluster support disabled")) {
            return new LockUnavailableException("Redis at " + description + ": connect failed: a seed is a standalone "
                    + "server, not a Redis Cluster node (cluster support disabled); use RedisLocks.connect(uri) for "
                    + "a single server", new NodeFailure(description, NodeFailure.Kind.ERROR, error));
        }
        return RedisErrors.translate(description, "connect", error);
    }

    private static String rootMessage(Throwable error) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append(' ');
            for (Throwable suppressed : t.getSuppressed()) {
                all.append(suppressed.getMessage()).append(' ');
            }
        }
        return all.toString();
    }
}
