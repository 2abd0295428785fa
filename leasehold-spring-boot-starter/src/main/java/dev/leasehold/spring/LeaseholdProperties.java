package dev.leasehold.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The {@code leasehold.*} properties. The Redis server comes from {@code leasehold.redis.uri} when
 * it is set, else from Spring Boot's {@code spring.data.redis.*} (see {@link RedisPropertiesMapper}).
 */
@ConfigurationProperties("leasehold")
public class LeaseholdProperties {

    private final Redis redis = new Redis();
    private final Locked locked = new Locked();

    public Redis getRedis() {
        return redis;
    }

    public Locked getLocked() {
        return locked;
    }

    /** The Redis backend the auto-configured {@code LockClient} connects to. */
    public static class Redis {

        /**
         * Redis server for the locks, as redis://[user:password@]host:port[/database] or rediss://
         * for TLS, or a master behind Sentinels as redis-sentinel://[password@]host:26379[,host:port]#master
         * (rediss-sentinel:// for TLS), or a Cluster as redis-cluster://[user:password@]host:port[,host:port...]
         * (rediss-cluster:// for TLS). Takes precedence over spring.data.redis.*, so the locks may live on another
         * server than the application's data.
         */
        private String uri;

        /**
         * Bound on every call to Redis (acquire attempt, renewal, release) and on connecting.
         * Default: spring.data.redis.timeout when set, else 3s. Between 1ms and 5m.
         */
        private Duration operationTimeout;

        /**
         * Longest a waiter sleeps between attempts when a release notification is lost (default
         * 1s). Between 1ms and 5m.
         */
        private Duration maxRecheck;

        /**
         * How long the fence key (the last fencing token of a lock name) outlives its last write;
         * tokens stay increasing across a server clock step back of up to this much (default 10m).
         * Between 1s and 30d.
         */
        private Duration fenceRetention;

        /**
         * Prefix of every key of every lock, e.g. "lock:", to keep the locks clear of the
         * application's own keys. None by default: the lock key is the lock name.
         */
        private String keyPrefix = "";

        /**
         * PEM file of the CA certificates to trust for TLS (rediss:// or spring.data.redis.ssl.enabled),
         * e.g. a private CA. Default: the JDK's trust store.
         */
        private Path trustedCertificate;

        public String getUri() {
            return uri;
        }

        public void setUri(String uri) {
            this.uri = uri;
        }

        public Duration getOperationTimeout() {
            return operationTimeout;
        }

        public void setOperationTimeout(Duration operationTimeout) {
            this.operationTimeout = operationTimeout;
        }

        public Duration getMaxRecheck() {
            return maxRecheck;
        }

        public void setMaxRecheck(Duration maxRecheck) {
            this.maxRecheck = maxRecheck;
        }

        public Duration getFenceRetention() {
            return fenceRetention;
        }

        public void setFenceRetention(Duration fenceRetention) {
            this.fenceRetention = fenceRetention;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public Path getTrustedCertificate() {
            return trustedCertificate;
        }

        public void setTrustedCertificate(Path trustedCertificate) {
            this.trustedCertificate = trustedCertificate;
        }
    }

    /** Defaults of the {@link dev.leasehold.spring.Locked @Locked} attributes left empty. */
    public static class Locked {

        /** How long a @Locked method waits for its lock when its waitFor attribute is empty. */
        private Duration defaultWait = Duration.ofSeconds(30);

        /** Watchdog ttl of the lease of a @Locked method whose ttl attribute is empty. */
        private Duration defaultTtl = Duration.ofSeconds(30);

        public Duration getDefaultWait() {
            return defaultWait;
        }

        public void setDefaultWait(Duration defaultWait) {
            this.defaultWait = defaultWait;
        }

        public Duration getDefaultTtl() {
            return defaultTtl;
        }

        public void setDefaultTtl(Duration defaultTtl) {
            this.defaultTtl = defaultTtl;
        }
    }
}
