package dev.leasehold.cli;

import dev.leasehold.redis.RedisLockClient;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code --redis URI} option of {@code run} and {@code inspect} (a server, a Sentinel group or
 * a Cluster, in {@link dev.leasehold.redis.RedisLocks}'s URI forms), falling back to the
 * {@value #ENV_VAR} environment variable, then to {@value #DEFAULT_URI}. The value may carry a
 * password, so it is never shown: not as a default in the help, not in any message.
 */
final class RedisOption {

    static final String ENV_VAR = "LEASEHOLD_REDIS";
    static final String DEFAULT_URI = "redis://localhost:6379";

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = "--redis", paramLabel = "URI",
            defaultValue = "${env:" + ENV_VAR + ":-" + DEFAULT_URI + "}", showDefaultValue = Visibility.NEVER,
            description = "Redis server: redis://[user:password@]host[:port][/db], rediss:// for TLS; a master "
                    + "behind Sentinels: redis-sentinel://[password@]host:port[,host:port...]#master "
                    + "(rediss-sentinel:// for TLS); a Cluster: redis-cluster://[user:password@]host:port[,host:port...] "
                    + "(rediss-cluster:// for TLS). "
                    + "Default: $" + ENV_VAR + ", else " + DEFAULT_URI + ". A password given here shows in ps: "
                    + "put the URI in $" + ENV_VAR + " instead.")
    private String uri;

    /**
     * Connects to the server.
     *
     * @throws ParameterException if the URI is malformed (a usage error)
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached or refuses the credentials
     */
    RedisLockClient connect() {
        return RedisConnect.connect(uri, "--redis", spec.commandLine());
    }
}
