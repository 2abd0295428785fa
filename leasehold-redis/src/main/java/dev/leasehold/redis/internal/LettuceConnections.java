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

    /** Handshakes tried in all when the server closes the connection during one. */
    private static final int HANDSHAKE_ATTEMPTS = 4;

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
     * tried again, up to {@value #HANDSHAKE_ATTEMPTS} handshakes in all, until one names the real
     * cause. Once more was not enough: on a loaded machine two handshakes in a row lost that race,
     * and a Redlock node with a wrong password passed for one that was merely down. A handshake
     * starts again only within the endpoint's handshake timeout of the first one, so a server that
     * closes every handshake slowly costs about that timeout, not four of them.
     */
    public static CompletableFuture<StatefulRedisConnection<String, String>> connect(RedisClient client,
                                                                                     RedisEndpoint endpoint) {
        long deadline = System.nanoTime() + endpoint.uri().getTimeout().toNanos();
        return connect(client, endpoint, HANDSHAKE_ATTEMPTS, deadline);
    }

    private static CompletableFuture<StatefulRedisConnection<String, String>> connect(RedisClient client,
                                                                                      RedisEndpoint endpoint,
                                                                                      int attempts, long deadline) {
        return connectOnce(client, endpoint).exceptionallyCompose(error ->
                attempts > 1 && RedisErrors.isClosedDuringHandshake(error) && System.nanoTime() - deadline < 0
                        ? connect(client, endpoint, attempts - 1, deadline)
                        : CompletableFuture.failedFuture(error));
    }

    private static CompletableFuture<StatefulRedisConnection<String, String>> connectOnce(RedisClient client,
                                                                                         RedisEndpoint endpoint) {
        return client.connectAsync(StringCodec.UTF8, endpoint.uri()).toCompletableFuture();
    }
}
