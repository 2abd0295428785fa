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
    private final Observations observations = new Observations();

    public Redis getRedis() {
        return redis;
    }

    public Locked getLocked() {
        return locked;
    }

    public LeaderElection getLeadership() {
        return leadership;
    }

    public Observations getObservations() {
        return observations;
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

        /**
         * Whether the application connects to Redis when it starts (default true), failing the startup
         * when the server cannot be reached. False: the application starts while Redis is down, the
         * LockClient bean connects at its first use (a call that cannot connect throws
         * LockUnavailableException, and the next one tries again) or at the first health check, and the
         * health indicator shows DOWN until the server answers. The bean is then a LockClient, not a
         * RedisLockClient.
         */
        private boolean connectOnStartup = true;

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

        public boolean isConnectOnStartup() {
            return connectOnStartup;
        }

        public void setConnectOnStartup(boolean connectOnStartup) {
            this.connectOnStartup = connectOnStartup;
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

    /** Traces of the locks: Micrometer observations, reported when the application has an ObservationRegistry. */
    public static class Observations {

        /**
         * Whether each acquisition's wait (leasehold.acquire) and each hold (leasehold.lease) is reported as
         * an observation, inside the caller's current one, when the application has an ObservationRegistry
         * bean (as Spring Boot's Actuator configures): so a request's trace shows where it waited for a lock.
         */
        private boolean enabled = true;

        /**
         * Whether the observations carry the lock name as the high-cardinality key value leasehold.lock.name
         * (a span attribute, never a meter tag). Off by default: lock names may carry customer data such as
         * order ids, and a tracing backend indexes them.
         */
        private boolean lockNames;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isLockNames() {
            return lockNames;
        }

        public void setLockNames(boolean lockNames) {
            this.lockNames = lockNames;
        }
    }
}
