package dev.leasehold.spring;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import io.lettuce.core.RedisURI;

import java.util.List;
import java.util.function.Consumer;

/**
 * The one place where properties become a {@link RedisLocks.Builder}: the server from
 * {@code leasehold.redis.uri}, else from {@code spring.data.redis.*} (Sentinel, Cluster, url, or host,
 * port, database, username, password and ssl.enabled), then the timeouts and the other {@code leasehold.redis.*}
 * settings. Every value the builder refuses becomes a {@link LeaseholdConfigurationException}
 * naming its property.
 *
 * <p>Honoured from Spring Boot: {@code url} (overrides host, port, username, password and database,
 * as in Boot; {@code rediss://} is TLS), {@code host}, {@code port}, {@code database},
 * {@code username}, {@code password}, {@code ssl.enabled}, {@code timeout} (the operation timeout,
 * unless {@code leasehold.redis.operation-timeout} is set). {@code connect-timeout} is not used on
 * its own: the operation timeout bounds connecting too. An SSL bundle ({@code ssl.bundle}) cannot be
 * handed to Leasehold: with one, {@code leasehold.redis.trusted-certificate} must name the CA.
 * A Sentinel group ({@code sentinel.*}) or a Cluster ({@code cluster.nodes}) wins over {@code url}
 * and {@code host}, as in Boot; see {@link RedisTopologies}. Master/replica properties are refused.
 */
final class RedisPropertiesMapper {

    private static final String SPRING = SpringDataRedisProperties.PREFIX;

    private RedisPropertiesMapper() {
    }

    /**
     * A builder set up from the properties, and the property that named the server, for the
     * message of a failed connect.
     */
    record Mapping(RedisLocks.Builder builder, String serverProperty) {

        /**
         * Connects, as {@link RedisLocks.Builder#connect()}.
         *
         * @throws LeaseholdConfigurationException naming the server's property when the server
         *         cannot be reached, refuses the credentials or is too old
         */
        RedisLockClient connect() {
            try {
                return builder.connect();
            } catch (LockUnavailableException e) {
                throw new LeaseholdConfigurationException(serverProperty, "Leasehold could not connect at startup: "
                        + e.getMessage(), e);
            }
        }
    }

    /**
     * Maps the properties onto a new builder.
     *
     * @throws LeaseholdConfigurationException naming the property when no server is configured, or
     *         a value is malformed, out of range or not supported
     */
    static Mapping map(LeaseholdProperties.Redis leasehold, SpringDataRedisProperties spring) {
        RedisLocks.Builder builder = RedisLocks.builder();
        String serverProperty = server(builder, leasehold, spring);
        apply("leasehold.redis.trusted-certificate", leasehold.getTrustedCertificate(), builder::trustedCertificate);
        if (leasehold.getOperationTimeout() != null) {
            apply("leasehold.redis.operation-timeout", leasehold.getOperationTimeout(), builder::operationTimeout);
        } else {
            apply(SPRING + ".timeout", spring.timeout(), builder::operationTimeout);
        }
        apply("leasehold.redis.max-recheck", leasehold.getMaxRecheck(), builder::maxRecheck);
        apply("leasehold.redis.fence-retention", leasehold.getFenceRetention(), builder::fenceRetention);
        apply("leasehold.redis.key-prefix", leasehold.getKeyPrefix(), builder::keyPrefix);
        return new Mapping(builder, serverProperty);
    }

    /** Sets the server on the builder; returns the property it came from. */
    private static String server(RedisLocks.Builder builder, LeaseholdProperties.Redis leasehold,
                                 SpringDataRedisProperties spring) {
        if (hasText(leasehold.getUri())) {
            apply("leasehold.redis.uri", leasehold.getUri(), builder::uri);
            return "leasehold.redis.uri";
        }
        if (spring.masterreplica() != null && hasItems(spring.masterreplica().nodes())) {
            throw new LeaseholdConfigurationException(SPRING + ".masterreplica.nodes", "master/replica is not "
                    + "supported by Leasehold; name the master (leasehold.redis.uri), its Sentinels "
                    + "(spring.data.redis.sentinel.*) or the Cluster (spring.data.redis.cluster.nodes)", null);
        }
        if (spring.ssl() != null && hasText(spring.ssl().bundle()) && leasehold.getTrustedCertificate() == null) {
            throw new LeaseholdConfigurationException(SPRING + ".ssl.bundle", "Leasehold cannot use an SSL bundle; "
                    + "set leasehold.redis.trusted-certificate to the PEM file of the CA that signed the server's "
                    + "certificate", null);
        }
        String topology = RedisTopologies.apply(builder, spring, ssl(spring));
        if (topology != null) {
            return topology;
        }
        if (hasText(spring.url())) {
            builder.uri(fromUrl(spring));
            return SPRING + ".url";
        }
        if (hasText(spring.host())) {
            builder.uri(fromHost(spring));
            return SPRING + ".host";
        }
        throw new LeaseholdConfigurationException("leasehold.redis.uri", "no Redis server is configured for "
                + "Leasehold's locks; set leasehold.redis.uri (e.g. redis://localhost:6379), or spring.data.redis.host "
                + "(with .port, .username, .password), spring.data.redis.url, spring.data.redis.sentinel.master and .nodes, "
                + "or spring.data.redis.cluster.nodes", null);
    }

    private static RedisURI fromUrl(SpringDataRedisProperties spring) {
        String url = spring.url().trim();
        if (!url.startsWith("redis://") && !url.startsWith("rediss://")) {
            throw new LeaseholdConfigurationException(SPRING + ".url", "must start with redis:// or rediss://, e.g. "
                    + "redis://user:password@localhost:6379/0", null);
        }
        RedisURI uri;
        try {
            uri = RedisURI.create(url);
        } catch (RuntimeException e) {
            // Not chained, and the URL not repeated: it may carry a password.
            throw new LeaseholdConfigurationException(SPRING + ".url", "is not a valid Redis URL ("
                    + e.getClass().getSimpleName() + "); write redis://[user:password@]host:port[/database]", null);
        }
        return spring.sslEnabled() ? RedisURI.builder(uri).withSsl(true).build() : uri;
    }

    private static RedisURI fromHost(SpringDataRedisProperties spring) {
        RedisURI.Builder uri = RedisURI.builder().withHost(spring.host().trim());
        apply(SPRING + ".port", spring.port(), uri::withPort);
        apply(SPRING + ".database", spring.database(), uri::withDatabase);
        RedisCredentials.of(SPRING, spring.username(), spring.password()).applyTo(uri);
        return uri.withSsl(ssl(spring)).build();
    }

    /** TLS when {@code ssl.enabled}, or when an SSL bundle is named and {@code ssl.enabled} left unset (Boot's rule). */
    private static boolean ssl(SpringDataRedisProperties spring) {
        boolean bundle = spring.ssl() != null && hasText(spring.ssl().bundle()) && spring.ssl().enabled() == null;
        return spring.sslEnabled() || bundle;
    }

    /** Applies a set value, turning the builder's refusal into an error that names the property. */
    private static <T> void apply(String property, T value, Consumer<T> setter) {
        if (value == null) {
            return;
        }
        try {
            setter.accept(value);
        } catch (IllegalArgumentException refused) {
            throw new LeaseholdConfigurationException(property, refused.getMessage(), refused);
        }
    }

    private static boolean hasText(String text) {
        return text != null && !text.isBlank();
    }

    private static boolean hasItems(List<String> list) {
        return list != null && !list.isEmpty();
    }
}
