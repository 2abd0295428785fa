package dev.leasehold.redis.internal;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * One server: a {@code redis://}/{@code rediss://} URI, or the master a {@code redis-sentinel://}
 * URI names. For Sentinel, Lettuce asks the Sentinels for the master on every (re)connect; a
 * Sentinel failover disconnects the old master's clients ({@code CLIENT KILL} during the
 * reconfiguration), so both connections reconnect to the promoted replica and Lettuce
 * re-subscribes the waiters' channels there.
 */
public final class ServerDeployment extends LettuceDeployment<RedisClient, StatefulRedisConnection<String, String>> {

    private final RedisEndpoint endpoint;

    /** @param commandTimeout see {@link RedisDeployment#commandTimeout()}; non-null means this owns the client */
    public ServerDeployment(RedisClient client, RedisEndpoint endpoint, StatefulRedisConnection<String, String> connection,
                            Duration commandTimeout) {
        this(client, endpoint, connection, commandTimeout, commandTimeout != null);
    }

    private ServerDeployment(RedisClient client, RedisEndpoint endpoint, StatefulRedisConnection<String, String> connection,
                             Duration commandTimeout, boolean ownsClient) {
        super(client, connection, commandTimeout, ownsClient);
        this.endpoint = endpoint;
    }

    @Override
    public RedisDeployment dedicated() {
        try {
            return new ServerDeployment(client, endpoint, LettuceConnections.connect(client, endpoint).join(),
                    commandTimeout(), false);
        } catch (RuntimeException e) {
            throw RedisErrors.translate(endpoint.describe(), "opening the replica-ack connection", e);
        }
    }

    @Override
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, Duration timeout) {
        return connection.async().waitForReplication(replicas, timeout.toMillis()).toCompletableFuture();
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return connection.async();
    }

    @Override
    public String describe() {
        return endpoint.describe();
    }

    @Override
    public int scriptGroup(String key) {
        return 0;
    }

    @Override
    public boolean shardedPubSub() {
        return false;
    }

    @Override
    public boolean clientChannels() {
        return true;
    }

    @Override
    public PubSubLink.Opener pubSub() {
        return onMessage -> open(client, endpoint, onMessage);
    }

    /** A plain pub/sub link to the server {@code endpoint} names (shared with leasehold-redlock's nodes). */
    public static CompletableFuture<PubSubLink> open(RedisClient client, RedisEndpoint endpoint,
                                                     BiConsumer<String, String> onMessage) {
        return client.connectPubSubAsync(StringCodec.UTF8, endpoint.uri()).toCompletableFuture().thenApply(c -> {
            c.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    onMessage.accept(channel, message);
                }
            });
            return new Link(c);
        });
    }

    private record Link(StatefulRedisPubSubConnection<String, String> connection) implements PubSubLink {

        @Override
        public CompletableFuture<Void> subscribe(String... channels) {
            return connection.async().subscribe(channels).toCompletableFuture();
        }

        @Override
        public CompletableFuture<Void> unsubscribe(String... channels) {
            return connection.async().unsubscribe(channels).toCompletableFuture();
        }

        @Override
        public void close() {
            connection.close();
        }
    }
}
