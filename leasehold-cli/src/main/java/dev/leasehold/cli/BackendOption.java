package dev.leasehold.cli;

import dev.leasehold.etcd.EtcdLockClient;
import dev.leasehold.etcd.EtcdLockInfo;
import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.redis.LockInfo;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.Optional;

/**
 * The {@code --backend redis|etcd} and {@code --endpoints URLS} options of {@code run} and
 * {@code inspect}. Redis (with {@code --redis}) is the default; etcd's endpoints fall back to the
 * {@value #ENV_VAR} environment variable, then to {@value #DEFAULT_ENDPOINTS}.
 */
final class BackendOption {

    static final String ENV_VAR = "LEASEHOLD_ETCD_ENDPOINTS";
    static final String DEFAULT_ENDPOINTS = "http://localhost:2379";

    /** The lock services the command can use. */
    enum Backend { redis, etcd }

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = "--backend", paramLabel = "NAME", defaultValue = "redis",
            description = "Lock service: redis (default, see --redis) or etcd (see --endpoints).")
    private Backend backend;

    @Option(names = "--endpoints", paramLabel = "URLS",
            defaultValue = "${env:" + ENV_VAR + ":-" + DEFAULT_ENDPOINTS + "}",
            description = "etcd cluster with --backend etcd: comma-separated http://host:port URLs. "
                    + "Default: $" + ENV_VAR + ", else " + DEFAULT_ENDPOINTS + ".")
    private String endpoints;

    boolean isEtcd() {
        return backend == Backend.etcd;
    }

    /**
     * Connects to the etcd cluster.
     *
     * @throws ParameterException if the endpoints are malformed (a usage error)
     * @throws dev.leasehold.LockUnavailableException if the cluster cannot be reached or refuses the request
     */
    EtcdLockClient connectEtcd() {
        EtcdLocks.Builder builder = EtcdLocks.builder();
        try {
            builder.endpoints(endpoints);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--endpoints: " + e.getMessage());
        }
        return builder.connect();
    }

    /** An etcd snapshot in the shape {@code inspect} and {@code run} print. */
    static LockInfo asLockInfo(EtcdLockInfo info) {
        return new LockInfo(info.name(),
                info.holder().map(holder -> info.holders() > 1 ? holder + " and " + (info.holders() - 1) + " more" : holder),
                info.remaining(), info.token(), info.waiters(), Optional.empty());
    }
}
