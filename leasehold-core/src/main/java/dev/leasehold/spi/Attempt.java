package dev.leasehold.spi;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/** The outcome of one acquire attempt against a backend: the lock was granted, or someone holds it. */
public sealed interface Attempt {

    /**
     * The lock was granted with this fencing token.
     *
     * @param lossSignal completes (with the reason) when the backend itself learns that the lease
     *                   is gone, e.g. a ZooKeeper session lost; the engine then marks the lease
     *                   lost at once. {@code null} when the backend learns of loss only through a
     *                   failed renewal.
     */
    record Acquired(long token, CompletionStage<String> lossSignal) implements Attempt {
    }

    /**
     * Another holder has the lock.
     *
     * @param remaining how long the holder's key still lives, or {@code null} when unknown
     *                  (no TTL, or the backend cannot tell)
     * @param wake      completes when this attempt is worth repeating, for backends that wake
     *                  each attempt on its own (e.g. a watch on the predecessor's key); {@code null}
     *                  when the subscription's {@link ReleaseSignal} does the waking
     */
    record Held(Duration remaining, CompletionStage<Wake> wake) implements Attempt {
    }

    static Attempt acquired(long token) {
        return new Acquired(token, null);
    }

    static Attempt held(Duration remaining) {
        return new Held(remaining, null);
    }
}
