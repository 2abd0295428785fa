package dev.leasehold.cli;

import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.zookeeper.ZooKeeperLocks;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.time.Duration;

/**
 * The {@code --backend redis|zookeeper|etcd} and {@code --endpoints} options of {@code run},
 * {@code inspect}, {@code list} and {@code break}: Redis through {@link RedisOption} (the default), a
 * ZooKeeper ensemble, or an etcd cluster. etcd's endpoints fall back to the {@value #ETCD_ENV_VAR}
 * environment variable; ZooKeeper's digest credentials come from {@value #ZOOKEEPER_DIGEST_ENV_VAR}
 * ({@code user:password}). Every backend is one {@link EngineLockClient}: the commands lock, inspect,
 * list and break through it alone, whatever the backend.
 */
final class BackendOption {

    static final String ETCD_ENV_VAR = "LEASEHOLD_ETCD_ENDPOINTS";
    /** {@code user:password} for ZooKeeper's digest scheme; an environment variable, so no password shows in {@code ps}. */
    static final String ZOOKEEPER_DIGEST_ENV_VAR = "LEASEHOLD_ZOOKEEPER_DIGEST";

    /** The backends the command line reaches. */
    enum Backend { redis, zookeeper, etcd }

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = "--backend", paramLabel = "NAME", defaultValue = "redis",
            description = "Lock backend: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    private Backend backend;

    @Option(names = "--endpoints", paramLabel = "ENDPOINTS",
            description = "For --backend zookeeper: host:port[,host:port...][/chroot] (digest credentials from $"
                    + ZOOKEEPER_DIGEST_ENV_VAR + "=user:password). For --backend etcd:"
                    + " http://host:port[,http://host:port...], default $" + ETCD_ENV_VAR + ".")
    private String endpoints;

    /** The longest ZooKeeper session the client may ask for, and so the longest {@code --ttl} on ZooKeeper. */
    static final Duration MAX_ZOOKEEPER_SESSION = Duration.ofMinutes(10);

    /**
     * Connects to the chosen backend, for the administrator's commands ({@code inspect}, {@code list},
     * {@code break}): ZooKeeper's default session.
     *
     * @throws ParameterException if the options do not fit together or the endpoints are malformed
     * @throws dev.leasehold.LockUnavailableException if the backend cannot be reached
     */
    EngineLockClient connect(RedisOption redis) {
        return connect(redis, null);
    }

    /**
     * Connects to the chosen backend for leases of {@code ttl}. On ZooKeeper the session, which
     * frees the lock when this process can no longer keep it (dead, paused, cut off), is asked
     * for with the ttl as its timeout, so the lock frees itself after about the ttl as on the other
     * backends; the servers may clamp it to their [minSessionTimeout, maxSessionTimeout], and the
     * lease's local deadline is the earlier of the ttl and what the session grants either way (so
     * the command is stopped before the servers can expire the session and let another command
     * start).
     *
     * @param ttl the lease's ttl, or null for the backend's default session
     * @throws ParameterException if the options do not fit together, the endpoints are malformed,
     *                            or the ttl is longer than a ZooKeeper session may be
     * @throws dev.leasehold.LockUnavailableException if the backend cannot be reached
     */
    EngineLockClient connect(RedisOption redis, Duration ttl) {
        if (backend != Backend.redis && redis.given()) {
            // Contradictory options: the user may believe the lock is taken on that Redis.
            throw new ParameterException(spec.commandLine(), "--redis is for --backend redis (and so is --redis-file);"
                    + " with --backend " + backend + " give the servers with --endpoints");
        }
        return switch (backend) {
            case redis -> connectRedis(redis);
            case zookeeper -> connectZooKeeper(ttl);
            case etcd -> connectEtcd();
        };
    }

    private EngineLockClient connectRedis(RedisOption redis) {
        if (endpoints != null) {
            throw new ParameterException(spec.commandLine(), "--endpoints is for --backend zookeeper or etcd;"
                    + " give a Redis server with --redis URI");
        }
        return redis.connect();
    }

    private EngineLockClient connectZooKeeper(Duration ttl) {
        if (endpoints == null || endpoints.isBlank()) {
            throw new ParameterException(spec.commandLine(), "--backend zookeeper needs --endpoints"
                    + " host:port[,host:port...][/chroot]");
        }
        ZooKeeperLocks.Builder builder = ZooKeeperLocks.builder();
        if (ttl != null) {
            if (ttl.compareTo(MAX_ZOOKEEPER_SESSION) > 0) {
                throw new ParameterException(spec.commandLine(), "--ttl must be at most "
                        + Durations.format(MAX_ZOOKEEPER_SESSION) + " with --backend zookeeper: the lock lives as long"
                        + " as the ZooKeeper session, which is at most that long; was " + Durations.format(ttl));
            }
            builder.sessionTimeout(ttl);
        }
        String digest = System.getenv(ZOOKEEPER_DIGEST_ENV_VAR);
        if (digest != null) {
            int colon = digest.indexOf(':');
            try {
                builder.digest(colon < 0 ? "" : digest.substring(0, colon), digest.substring(colon + 1));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "$" + ZOOKEEPER_DIGEST_ENV_VAR
                        + " must be user:password, with a user and a password");
            }
        }
        try {
            return builder.connectString(endpoints).build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--endpoints: " + e.getMessage());
        }
    }

    private EngineLockClient connectEtcd() {
        String urls = endpoints != null ? endpoints : System.getenv(ETCD_ENV_VAR);
        if (urls == null || urls.isBlank()) {
            throw new ParameterException(spec.commandLine(), "--backend etcd needs --endpoints"
                    + " http://host:port[,http://host:port...] (or $" + ETCD_ENV_VAR + ")");
        }
        EtcdLocks.Builder builder = EtcdLocks.builder();
        try {
            builder.endpoints(urls);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--endpoints: " + e.getMessage());
        }
        return builder.connect();
    }

    /**
     * The usage error for an administrator's command ({@code what}: "list locks", ...) that the
     * chosen backend cannot do, with its reason: a retry cannot help, so it is no outage.
     */
    CliException unsupported(String what, UnsupportedOperationException reason) {
        return new CliException(ExitCodes.USAGE, "--backend " + backend + " cannot " + what + ": "
                + reason.getMessage(), reason);
    }
}
