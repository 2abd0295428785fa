package dev.leasehold.cli;

import dev.leasehold.redis.RedisLockClient;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Path;

/**
 * The {@code --redis URI} and {@code --redis-file FILE} options of the commands (a server, a
 * Sentinel group or a Cluster, in {@link dev.leasehold.redis.RedisLocks}'s URI forms), falling
 * back to the {@value #ENV_VAR} environment variable, then to {@value #DEFAULT_URI}. The value may
 * carry a password, so it is never shown: not as a default in the help, not in any message; and
 * the environment variable and the file keep it out of {@code ps}.
 */
final class RedisOption {

    static final String ENV_VAR = "LEASEHOLD_REDIS";
    static final String DEFAULT_URI = "redis://localhost:6379";
    static final String URI_OPTION = "--redis";
    static final String FILE_OPTION = "--redis-file";

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = URI_OPTION, paramLabel = "URI",
            defaultValue = "${env:" + ENV_VAR + ":-" + DEFAULT_URI + "}", showDefaultValue = Visibility.NEVER,
            description = "Redis server: redis://[user:password@]host[:port][/db], rediss:// for TLS; a master "
                    + "behind Sentinels: redis-sentinel://[password@]host:port[,host:port...]#master "
                    + "(rediss-sentinel:// for TLS); a Cluster: redis-cluster://[user:password@]host:port[,host:port...] "
                    + "(rediss-cluster:// for TLS). "
                    + "Default: $" + ENV_VAR + ", else " + DEFAULT_URI + ". A password given here shows in ps: "
                    + "put the URI in $" + ENV_VAR + " or in a file (" + FILE_OPTION + ") instead.")
    private String uri;

    @Option(names = FILE_OPTION, paramLabel = "FILE",
            description = "Read the Redis URI (any form --redis takes) from the first line of FILE, e.g. a secret "
                    + "mounted by Kubernetes or systemd's LoadCredential: its password then shows neither in ps "
                    + "nor in the environment. A regular file of UTF-8 text, at most " + UriFile.MAX_BYTES / 1024
                    + " KiB. Instead of --redis and $" + ENV_VAR + ".")
    private Path uriFile;

    /**
     * Connects to the server.
     *
     * @throws ParameterException if the URI is malformed, or the file gives none (usage errors)
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached or refuses the credentials
     */
    RedisLockClient connect() {
        if (uriFile == null) {
            return RedisConnect.connect(uri, URI_OPTION, spec.commandLine());
        }
        if (spec.commandLine().getParseResult().hasMatchedOption(URI_OPTION)) {
            throw new ParameterException(spec.commandLine(), "give the Redis URI once: " + URI_OPTION + " or "
                    + FILE_OPTION + ", not both");
        }
        return RedisConnect.connect(readUri(), FILE_OPTION + " " + uriFile, spec.commandLine());
    }

    /** Whether the command line names a Redis server, in either option. */
    boolean given() {
        return spec.commandLine().getParseResult().hasMatchedOption(URI_OPTION) || uriFile != null;
    }

    /** The URI in the file ({@link UriFile}); its content never appears in a message. */
    private String readUri() {
        try {
            return UriFile.firstLine(uriFile);
        } catch (UriFile.Refused refused) {
            throw usage(refused.getMessage());
        }
    }

    private ParameterException usage(String problem) {
        return new ParameterException(spec.commandLine(), FILE_OPTION + ": " + uriFile + " " + problem);
    }
}
