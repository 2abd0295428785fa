package dev.leasehold.redlock;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The Lettuce resources one Redlock client shares across its N connections. */
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
}
