package dev.leasehold.redis.internal;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * How Leasehold sets up Lettuce, shared by every Redis-based backend (single server, Redlock):
 * client options that fail fast and bound every command, and a connect that tells a rejected
 * password from an unreachable server.
 */
public final class LettuceConnections {

    private LettuceConnections() {
    }

    /**
     * Options for a Lettuce client Leasehold creates: commands are rejected at once while
     * disconnected (the engine retries and bounds every call itself) and time out after
     * {@code operationTimeout}, which is also the TCP connect timeout.
     *
     * @param trustedCertificate PEM file of CA certificates for {@code rediss://}, or {@code null}
     */
    public static ClientOptions clientOptions(Duration operationTimeout, Path trustedCertificate) {
        ClientOptions.Builder options = ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(operationTimeout).build())
                .timeoutOptions(TimeoutOptions.enabled(operationTimeout));
        if (trustedCertificate != null) {
            options.sslOptions(SslOptions.builder().jdkSslProvider().trustManager(trustedCertificate.toFile()).build());
        }
        return options.build();
    }

    /**
     * Returns {@code pemFile} if it can be read.
     *
     * @throws IllegalArgumentException if it is null or not a readable file
     */
    public static Path trustedCertificate(Path pemFile) {
        if (pemFile == null || !Files.isReadable(pemFile)) {
            throw new IllegalArgumentException("trustedCertificate must be a readable PEM file, got " + pemFile);
        }
        return pemFile;
    }

    /**
     * Opens a command connection. Lettuce now and then reports a rejected AUTH as a connection
     * closed during the handshake (the close overtakes the error reply), so such a failure is
     * tried once more, which names the real cause.
     */
    public static CompletableFuture<StatefulRedisConnection<String, String>> connect(RedisClient client,
                                                                                     RedisEndpoint endpoint) {
        return connectOnce(client, endpoint).exceptionallyCompose(error -> RedisErrors.isClosedDuringHandshake(error)
                ? connectOnce(client, endpoint)
                : CompletableFuture.failedFuture(error));
    }

    private static CompletableFuture<StatefulRedisConnection<String, String>> connectOnce(RedisClient client,
                                                                                         RedisEndpoint endpoint) {
        return client.connectAsync(StringCodec.UTF8, endpoint.uri()).toCompletableFuture();
    }
}
