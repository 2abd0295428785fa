package dev.leasehold.redis.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The one pub/sub connection a client's waiters share, whatever the deployment: plain
 * {@code SUBSCRIBE} on one server (Sentinel included) or on a Cluster without sharded pub/sub,
 * {@code SSUBSCRIBE} routed to each channel's slot on a Cluster of Redis 7 or later.
 */
public interface PubSubLink {

    /** Opens a link whose messages go to {@code onMessage(channel, message)}. */
    @FunctionalInterface
    interface Opener {
        CompletableFuture<PubSubLink> open(BiConsumer<String, String> onMessage);
    }

    /** Subscribes to {@code channels} (of one Cluster slot) in one command. */
    CompletableFuture<Void> subscribe(String... channels);

    CompletableFuture<Void> unsubscribe(String... channels);

    void close();
}
