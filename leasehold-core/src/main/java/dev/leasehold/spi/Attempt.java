package dev.leasehold.spi;

import java.time.Duration;

/** The outcome of one acquire attempt against a backend: the lock was granted, or someone holds it. */
public sealed interface Attempt {

    /** The lock was granted with this fencing token. */
    record Acquired(long token) implements Attempt {
    }

    /**
     * Another holder has the lock.
     *
     * @param remaining how long the holder's key still lives, or {@code null} when unknown
     *                  (no TTL, or the backend cannot tell)
     */
    record Held(Duration remaining) implements Attempt {
    }

    static Attempt acquired(long token) {
        return new Acquired(token);
    }

    static Attempt held(Duration remaining) {
        return new Held(remaining);
    }
}
