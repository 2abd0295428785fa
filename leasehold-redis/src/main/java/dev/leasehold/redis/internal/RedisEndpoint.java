package dev.leasehold.redis.internal;

import dev.leasehold.spi.Args;
import io.lettuce.core.RedisURI;

import java.time.Duration;
import java.util.stream.Collectors;

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
        String database = uri.getDatabase() == 0 ? "" : "/" + uri.getDatabase();
        this.description = isSentinel(uri)
                ? "redis-sentinel://" + uri.getSentinels().stream().map(s -> s.getHost() + ":" + s.getPort())
                        .collect(Collectors.joining(",")) + database + "#" + uri.getSentinelMasterId()
                : (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort() + database;
    }

    private static boolean isSentinel(RedisURI uri) {
        return !uri.getSentinels().isEmpty();
    }

    /** Whether the URI names a master through Sentinels ({@code redis-sentinel://}). */
    public boolean sentinel() {
        return isSentinel(uri);
    }

    /**
     * Parses {@code redis://}, {@code rediss://} (TLS), and {@code redis-sentinel://} or
     * {@code rediss-sentinel://} with the master's name after {@code #}, e.g.
     * {@code redis-sentinel://password@host1:26379,host2:26379#mymaster} (the password is the
     * master's; Lettuce's syntax).
     *
     * @throws IllegalArgumentException if the text is null, empty, of another scheme, malformed, or
     *                                  a Sentinel URI without a master name
     */
    public static RedisEndpoint parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("Redis URI must not be null or empty; "
                    + "use redis://[user:password@]host:port or rediss://... for TLS");
        }
        if (!text.startsWith("redis://") && !text.startsWith("rediss://") && !text.startsWith("redis-sentinel://")
                && !text.startsWith("rediss-sentinel://")) {
            throw new IllegalArgumentException("Redis URI must start with redis://, rediss://, redis-sentinel:// or "
                    + "rediss-sentinel:// (or, where a Cluster is accepted, redis-cluster://), e.g. "
                    + "redis://localhost:6379 or redis-sentinel://localhost:26379#mymaster");
        }
        if (text.contains("-sentinel://") && (text.indexOf('#') < 0 || text.endsWith("#"))) {
            throw noMasterName();
        }
        checkHostsAndPorts(text);
        RedisURI uri;
        try {
            uri = RedisURI.create(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Redis URI is not valid (" + e.getClass().getSimpleName()
                    + "); use redis://[user:password@]host:port[/db] or redis-sentinel://host:port[,host:port]#master");
        }
        if (isSentinel(uri) && (uri.getSentinelMasterId() == null || uri.getSentinelMasterId().isBlank())) {
            throw noMasterName();
        }
        return new RedisEndpoint(uri);
    }

    /**
     * What Lettuce misreads or reports without a hint: whitespace (a password with a space fails
     * with a bare syntax error), and a port that is not a number (Lettuce takes {@code host:63x1}
     * for a host name, and the connect then fails as if that host did not exist). Host and port
     * are no secret, so the message may name them; nothing before the {@code @} is looked at.
     */
    private static void checkHostsAndPorts(String text) {
        if (text.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("Redis URI must not contain spaces or other whitespace: percent-encode "
                    + "them in a password (a space is %20)");
        }
        int start = text.indexOf("://") + 3;
        int end = start;
        while (end < text.length() && "/?#".indexOf(text.charAt(end)) < 0) {
            end++;
        }
        String authority = text.substring(start, end);
        if (authority.indexOf('@') < 0 && text.indexOf('@', end) >= 0) {
            // A '/', '?' or '#' in a password cuts the authority before its '@': what precedes it would
            // be read (and named below) as host and port, and that is the user name and password.
            throw new IllegalArgumentException("Redis URI has a '/', '?' or '#' before its '@': percent-encode them "
                    + "in a user name or password (%2F, %3F, %23)");
        }
        for (String host : authority.substring(authority.lastIndexOf('@') + 1).split(",", -1)) {
            int colon = host.startsWith("[") ? host.indexOf("]:") + 1 : host.indexOf(':');
            boolean bareIpv6 = !host.startsWith("[") && colon >= 0 && host.indexOf(':', colon + 1) >= 0;
            if (colon <= 0 || bareIpv6) {
                continue;
            }
            String port = host.substring(colon + 1);
            if (!validPort(port)) {
                throw new IllegalArgumentException("Redis URI gives host '" + host.substring(0, colon) + "' the port '"
                        + port + "', which is not a number from 1 to 65535");
            }
        }
    }

    private static boolean validPort(String port) {
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return false;
        }
        int number = Integer.parseInt(port);
        return number >= 1 && number <= 65535;
    }

    private static IllegalArgumentException noMasterName() {
        return new IllegalArgumentException("Sentinel URI names no master: add the master's name after '#', "
                + "e.g. redis-sentinel://localhost:26379#mymaster");
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
        RedisURI.Builder copy = RedisURI.builder(uri).withTimeout(timeout);
        if (sentinel()) {
            // Lettuce's copy keeps neither the Sentinels nor the master's name.
            uri.getSentinels().forEach(copy::withSentinel);
            copy.withSentinelMasterId(uri.getSentinelMasterId());
        }
        return new RedisEndpoint(copy.build());
    }

    public static RedisEndpoint of(RedisURI uri) {
        return new RedisEndpoint(Args.notNull("Redis URI", uri));
    }

    public RedisURI uri() {
        return uri;
    }

    /** Scheme, host, port and database: never the user or password. */
    public String describe() {
        return description;
    }
}
