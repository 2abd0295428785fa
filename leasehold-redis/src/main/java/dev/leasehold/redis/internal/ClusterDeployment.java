package dev.leasehold.redis.internal;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A Redis Cluster through Lettuce's cluster client, which routes every call to the master of its
 * first key's slot and follows {@code MOVED} (a slot now lives elsewhere: the topology is refreshed)
 * and {@code ASK} (a slot being migrated: the one call is retried on the importing node). Waiters
 * subscribe with {@code SSUBSCRIBE} on the node of their channel's slot when every node runs Redis 7
 * or later (scripts then {@code SPUBLISH}, which reaches that slot's nodes only), else with plain
 * {@code SUBSCRIBE}, whose messages every node forwards to the whole cluster.
 */
public final class ClusterDeployment
        extends LettuceDeployment<RedisClusterClient, StatefulRedisClusterConnection<String, String>> {

    private final String description;
    private final boolean sharded;

    /**
     * @param sharded        whether every node supports sharded pub/sub (Redis 7 or later)
     * @param commandTimeout see {@link RedisDeployment#commandTimeout()}; non-null means this owns the client
     */
    public ClusterDeployment(RedisClusterClient client, String description,
                             StatefulRedisClusterConnection<String, String> connection, boolean sharded,
                             Duration commandTimeout) {
        this(client, description, connection, sharded, commandTimeout, commandTimeout != null);
    }

    private ClusterDeployment(RedisClusterClient client, String description,
                              StatefulRedisClusterConnection<String, String> connection, boolean sharded,
                              Duration commandTimeout, boolean ownsClient) {
        super(client, connection, commandTimeout, ownsClient);
        this.description = description;
        this.sharded = sharded;
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return connection.async();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public int scriptGroup(String key) {
        return SlotHash.getSlot(key);
    }

    @Override
    public boolean shardedPubSub() {
        return sharded;
    }

    @Override
    public boolean clientChannels() {
        return false;
    }

    @Override
    public PubSubLink.Opener pubSub() {
        return onMessage -> client.connectPubSubAsync(StringCodec.UTF8).thenApply(c -> {
            c.addListener(new RedisClusterPubSubAdapter<>() {
                @Override
                public void message(RedisClusterNode node, String channel, String message) {
                    onMessage.accept(channel, message);
                }

                @Override
                public void smessage(RedisClusterNode node, String channel, String message) {
                    onMessage.accept(channel, message);
                }
            });
            return new Link(c, sharded);
        });
    }

    /** A second cluster connection: its node connections are its own, so a {@code WAIT} blocks none of this one's. */
    @Override
    public RedisDeployment dedicated() {
        try {
            return new ClusterDeployment(client, description, client.connect(StringCodec.UTF8), sharded,
                    commandTimeout(), false);
        } catch (RuntimeException e) {
            throw RedisErrors.translate(description, "opening the replica-ack connection", e);
        }
    }

    /**
     * {@code WAIT} on this connection's node connection to the slot's master: Lettuce keys the
     * connections that carry routed writes by the master's host and port, and hands out the same
     * one here, so the {@code WAIT} follows the writes on one socket. A topology that is out of date
     * (a slot moved, a failover) names a master the write was redirected away from, whose replicas
     * would acknowledge at once: so an {@code EXISTS key} goes first on the same connection, and
     * when that master answers it with a redirection the result is 0 acknowledgements.
     */
    @Override
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, Duration timeout) {
        RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        if (master == null) {
            return CompletableFuture.completedFuture(0L);
        }
        return connection.getConnectionAsync(master.getUri().getHost(), master.getUri().getPort())
                .thenCompose(node -> {
                    CompletableFuture<Boolean> served = node.async().exists(key).toCompletableFuture()
                            .handle((count, redirected) -> redirected == null);
                    return node.async().waitForReplication(replicas, timeout.toMillis()).toCompletableFuture()
                            .thenCombine(served, (acks, here) -> here ? acks : 0L);
                });
    }

    private record Link(StatefulRedisClusterPubSubConnection<String, String> connection, boolean sharded)
            implements PubSubLink {

        @Override
        public CompletableFuture<Void> subscribe(String... channels) {
            return (sharded ? connection.async().ssubscribe(channels) : connection.async().subscribe(channels))
                    .toCompletableFuture();
        }

        @Override
        public CompletableFuture<Void> unsubscribe(String... channels) {
            return (sharded ? connection.async().sunsubscribe(channels) : connection.async().unsubscribe(channels))
                    .toCompletableFuture();
        }

        @Override
        public void close() {
            connection.close();
        }
    }
}
