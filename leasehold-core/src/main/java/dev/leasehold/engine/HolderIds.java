package dev.leasehold.engine;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes the owner strings stored in lock keys, and the redacted form that is the only one ever
 * logged: a full holder string would let anyone who reads the log release or renew someone
 * else's lock.
 *
 * <p>Each client draws a 128-bit secret prefix once and appends a counter, so ids are unique and
 * unguessable without paying for a secure random draw on every acquire.
 */
public final class HolderIds {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final String prefix;
    private final AtomicLong sequence = new AtomicLong();

    public HolderIds() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        this.prefix = ENCODER.encodeToString(bytes) + ":";
    }

    /** A new id: this client's secret prefix and a sequence number. */
    public String next() {
        return prefix + Long.toString(sequence.incrementAndGet(), 36);
    }

    /** The first 6 characters followed by an ellipsis, safe to log. */
    public static String redact(String id) {
        if (id == null) {
            return "null";
        }
        return id.length() <= 6 ? "…" : id.substring(0, 6) + "…";
    }
}
