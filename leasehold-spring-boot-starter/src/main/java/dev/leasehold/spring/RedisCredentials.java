package dev.leasehold.spring;

import io.lettuce.core.RedisURI;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * A username and password pair of properties ({@code spring.data.redis.username/password}, or the
 * Sentinels' {@code spring.data.redis.sentinel.username/password}), checked once and put on a URI.
 * The password never appears in a message.
 *
 * @param username an ACL user, or null for the default user
 * @param password the password, or null for none
 */
record RedisCredentials(String username, String password) {

    /**
     * The pair under {@code prefix} ({@code prefix + ".username"}, {@code prefix + ".password"}).
     *
     * @throws LeaseholdConfigurationException naming {@code prefix.password} when a username comes
     *         without its password
     */
    static RedisCredentials of(String prefix, String username, String password) {
        boolean user = username != null && !username.isBlank();
        if (user && password == null) {
            throw new LeaseholdConfigurationException(prefix + ".password", "an ACL user (" + prefix + ".username) "
                    + "needs its password", null);
        }
        return new RedisCredentials(user ? username : null, password);
    }

    /** Authenticates {@code uri} with these credentials, when there is a password. */
    RedisURI.Builder applyTo(RedisURI.Builder uri) {
        if (password != null) {
            if (username != null) {
                uri.withAuthentication(username, password.toCharArray());
            } else {
                uri.withPassword(password.toCharArray());
            }
        }
        return uri;
    }

    /**
     * The user-info part of a URI string, percent-encoded (Lettuce decodes it):
     * {@code user:password@}, {@code :password@}, or empty without a password. The colon is
     * always written: Lettuce splits a bare {@code password@} at the first (decoded) colon.
     */
    String userInfo() {
        if (password == null) {
            return "";
        }
        return (username == null ? "" : encode(username)) + ":" + encode(password) + "@";
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Override
    public String toString() {
        return "RedisCredentials[username=" + username + ", password=" + (password == null ? "none" : "***") + "]";
    }
}
