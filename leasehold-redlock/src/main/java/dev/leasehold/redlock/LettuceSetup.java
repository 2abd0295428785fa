package dev.leasehold.redlock;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The Lettuce resources and options one Redlock client shares across its N connections. */
final class LettuceSetup {

    /**
     * Longest pause between reconnect attempts to a node that went away. Lettuce's default grows to
     * 30 s; a Redlock node that is back should rejoin the quorum within about a second, and an
     * attempt against a dead node costs one refused TCP connect.
     */
    static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

    private LettuceSetup() {
    }

    /** One set of event loops for all nodes; the client that owns them must shut them down. */
    static ClientResources resources() {
        return ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ZERO, MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS))
                .build();
    }

    /**
     * @param trustedCertificate PEM file of CA certificates for {@code rediss://} nodes, or {@code null}
     */
    static ClientOptions options(Duration operationTimeout, Path trustedCertificate) {
        ClientOptions.Builder options = ClientOptions.builder()
                // A disconnected node must fail at once, not queue: its vote is simply missing from
                // the round, and the round goes on with the others.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(operationTimeout).build())
                .timeoutOptions(TimeoutOptions.enabled(operationTimeout));
        if (trustedCertificate != null) {
            options.sslOptions(SslOptions.builder().jdkSslProvider().trustManager(trustedCertificate.toFile()).build());
        }
        return options.build();
    }
}
