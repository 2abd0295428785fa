package dev.leasehold.spring;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import java.time.Duration;
import java.util.List;

/**
 * The {@code spring.data.redis.*} properties Leasehold honours, under Spring Boot's names, bound
 * here rather than through Boot's {@code DataRedisProperties} so the starter does not bring
 * Spring Data Redis. Unset values are null, so "not configured" can be told from Boot's defaults.
 *
 * @param url            {@code spring.data.redis.url}: overrides host, port, username, password and database
 * @param host           {@code spring.data.redis.host}
 * @param port           {@code spring.data.redis.port} (6379 when unset)
 * @param database       {@code spring.data.redis.database} (0 when unset)
 * @param username       {@code spring.data.redis.username}: an ACL user
 * @param password       {@code spring.data.redis.password}
 * @param timeout        {@code spring.data.redis.timeout}: becomes the operation timeout
 * @param connectTimeout {@code spring.data.redis.connect-timeout}: see {@link RedisPropertiesMapper}
 * @param ssl            {@code spring.data.redis.ssl.*}
 * @param sentinel       {@code spring.data.redis.sentinel.*}
 * @param cluster        {@code spring.data.redis.cluster.*}
 * @param masterreplica  {@code spring.data.redis.masterreplica.*}
 */
record SpringDataRedisProperties(String url, String host, Integer port, Integer database, String username,
                                 String password, Duration timeout, Duration connectTimeout, Ssl ssl,
                                 Sentinel sentinel, Cluster cluster, Nodes masterreplica) {

    static final String PREFIX = "spring.data.redis";

    /**
     * Binds {@code spring.data.redis.*} from the environment.
     *
     * @throws org.springframework.boot.context.properties.bind.BindException naming the property
     *         when a value does not convert (e.g. a malformed duration)
     */
    static SpringDataRedisProperties bind(Environment environment) {
        return Binder.get(environment).bindOrCreate(PREFIX, SpringDataRedisProperties.class);
    }

    boolean sslEnabled() {
        return ssl != null && Boolean.TRUE.equals(ssl.enabled());
    }

    /** @param enabled {@code ssl.enabled}; @param bundle {@code ssl.bundle}, an SSL bundle's name */
    record Ssl(Boolean enabled, String bundle) {
    }

    /**
     * @param master   {@code sentinel.master}: the name the Sentinels know the master by
     * @param nodes    {@code sentinel.nodes}: the Sentinels, as host:port
     * @param username {@code sentinel.username}: the Sentinels' ACL user
     * @param password {@code sentinel.password}: the Sentinels' password (not the data nodes')
     */
    record Sentinel(String master, List<String> nodes, String username, String password) {
    }

    /**
     * {@code cluster.max-redirects} is not bound: see {@link RedisTopologies}.
     *
     * @param nodes {@code cluster.nodes}: seed nodes, as host:port
     */
    record Cluster(List<String> nodes) {
    }

    /** @param nodes {@code masterreplica.nodes} */
    record Nodes(List<String> nodes) {
    }
}
