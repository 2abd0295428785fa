package dev.leasehold.engine;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Makes the unguessable owner strings stored in lock keys, and the redacted form that is the
 * only one ever logged: a full holder string would let anyone who reads the log release or
 * renew someone else's lock.
 */
public final class HolderIds {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private HolderIds() {
    }

    /** 128 random bits, URL-safe Base64 (22 characters). */
    public static String newId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return ENCODER.encodeToString(bytes);
    }

    /** The first 6 characters followed by an ellipsis, safe to log. */
    public static String redact(String id) {
        if (id == null) {
            return "null";
        }
        return id.length() <= 6 ? "…" : id.substring(0, 6) + "…";
    }
}
