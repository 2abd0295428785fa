package dev.leasehold.redis.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.api.StatefulConnection;

import java.time.Duration;

/**
 * What a single-server and a Cluster deployment hold alike: the Lettuce client, the command
 * connection, and whether Leasehold made the client (then it set the command timeout, and closing
 * the deployment shuts the client down; a client the application gave stays running).
 *
 * @param <C> the Lettuce client type
 * @param <S> the command connection type
 */
abstract class LettuceDeployment<C extends AbstractRedisClient, S extends StatefulConnection<String, String>>
        implements RedisDeployment {

    final C client;
    final S connection;
    private final Duration commandTimeout;
    private final boolean ownsClient;

    LettuceDeployment(C client, S connection, Duration commandTimeout, boolean ownsClient) {
        this.client = client;
        this.connection = connection;
        this.commandTimeout = commandTimeout;
        this.ownsClient = ownsClient;
    }

    @Override
    public final Duration commandTimeout() {
        return commandTimeout;
    }

    @Override
    public final void close() {
        connection.close();
        if (ownsClient) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
