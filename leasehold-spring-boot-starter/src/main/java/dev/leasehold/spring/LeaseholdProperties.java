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
    private final LeaderElection leadership = new LeaderElection();

    public Redis getRedis() {
        return redis;
    }

    public Locked getLocked() {
        return locked;
    }

    public LeaderElection getLeadership() {
        return leadership;
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

    /** The leader election this application runs for (a {@code Leadership} bean), when a name is set. */
    public static class LeaderElection {

        /**
         * Name of the leader election this application joins: when set, a Leadership bean runs for it from
         * context start to close and publishes LeadershipGrantedEvent and LeadershipRevokedEvent. The
         * election's lock is the lock of this name.
         */
        private String name;

        /**
         * Watchdog ttl of each term: how long a crashed leader keeps the others waiting (default 30s); a
         * leader that resigns or shuts down frees the election at once. Between 10ms and 1d.
         */
        private Duration ttl = Duration.ofSeconds(30);

        /**
         * Display id others see as the leader (currentLeader()); never a secret. Default: host name,
         * process id and a counter.
         */
        private String leaderId;

        /** Value the leader publishes while it leads, e.g. its host:port, read by currentLeader(). None by default. */
        private String value;

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public Duration getTtl() {
            return ttl;
        }

        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        public String getLeaderId() {
            return leaderId;
        }

        public void setLeaderId(String leaderId) {
            this.leaderId = leaderId;
        }

        public String getValue() {
            return value;
        }

        public void setValue(String value) {
            this.value = value;
        }
    }
}
