package dev.leasehold.redis.internal;

import io.lettuce.core.RedisURI;

import java.time.Duration;

/**
 * A parsed Redis URI and its credential-free description. Parsing errors never echo the URI,
 * which may carry a password. Public so other Redis-based backends (leasehold-redlock) parse
 * their URIs the same way.
 */
public final class RedisEndpoint {

    private final RedisURI uri;
    private final String description;

    private RedisEndpoint(RedisURI uri) {
        this.uri = uri;
        this.description = (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort()
                + (uri.getDatabase() == 0 ? "" : "/" + uri.getDatabase());
    }

    /**
     * @throws IllegalArgumentException if the text is null, empty or not a redis:// or rediss:// URI
     */
    public static RedisEndpoint parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("Redis URI must not be null or empty; "
                    + "use redis://[user:password@]host:port or rediss://... for TLS");
        }
        if (!text.startsWith("redis://") && !text.startsWith("rediss://")) {
            throw new IllegalArgumentException("Redis URI must start with redis:// or rediss://, "
                    + "e.g. redis://localhost:6379");
        }
        try {
            return new RedisEndpoint(RedisURI.create(text));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Redis URI is not valid (" + e.getClass().getSimpleName()
                    + "); use redis://[user:password@]host:port[/db]");
        }
    }

    /**
     * This endpoint with Lettuce's connection-handshake timeout set to {@code timeout}, unless the
     * URI chose its own. Lettuce bounds the handshake (HELLO, AUTH, PING) by the URI's timeout,
     * 60 s by default, so without this a frozen server would hang a connect for a minute.
     */
    public RedisEndpoint withHandshakeTimeout(Duration timeout) {
        if (!RedisURI.DEFAULT_TIMEOUT_DURATION.equals(uri.getTimeout())) {
            return this;
        }
        return new RedisEndpoint(RedisURI.builder(uri).withTimeout(timeout).build());
    }

    public static RedisEndpoint of(RedisURI uri) {
        if (uri == null) {
            throw new IllegalArgumentException("Redis URI must not be null");
        }
        return new RedisEndpoint(uri);
    }

    public RedisURI uri() {
        return uri;
    }

    /** Scheme, host, port and database: never the user or password. */
    public String describe() {
        return description;
    }
}
