package dev.leasehold.cli;

import dev.leasehold.LockClient;
import dev.leasehold.redis.LockInfo;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.zookeeper.LockQueue;
import dev.leasehold.zookeeper.ZooKeeperLockClient;
import dev.leasehold.zookeeper.ZooKeeperLocks;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The {@code --backend redis|zookeeper} and {@code --endpoints} options of {@code run} and
 * {@code inspect}: Redis through {@link RedisOption}, or a ZooKeeper ensemble.
 */
final class BackendOption {

    /** The backends the command line reaches. */
    enum Backend { redis, zookeeper }

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = "--backend", paramLabel = "NAME", defaultValue = "redis",
            description = "Lock backend: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    private Backend backend;

    @Option(names = "--endpoints", paramLabel = "HOST:PORT,...",
            description = "The ZooKeeper ensemble, for --backend zookeeper: host:port[,host:port...][/chroot].")
    private String endpoints;

    /** A connected client and how to read a lock's state on it; closing it closes the client. */
    record Connected(LockClient client, Function<String, LockInfo> inspect) implements AutoCloseable {
        @Override
        public void close() {
            client.close();
        }
    }

    /**
     * Connects to the chosen backend.
     *
     * @throws ParameterException if the options do not fit together or the endpoints are malformed
     * @throws dev.leasehold.LockUnavailableException if the backend cannot be reached
     */
    Connected connect(RedisOption redis) {
        if (backend == Backend.redis) {
            if (endpoints != null) {
                throw new ParameterException(spec.commandLine(), "--endpoints is for --backend zookeeper;"
                        + " give a Redis server with --redis URI");
            }
            RedisLockClient client = redis.connect();
            return new Connected(client, client::inspect);
        }
        if (endpoints == null || endpoints.isBlank()) {
            throw new ParameterException(spec.commandLine(), "--backend zookeeper needs --endpoints"
                    + " host:port[,host:port...][/chroot]");
        }
        ZooKeeperLockClient client;
        try {
            client = ZooKeeperLocks.connect(endpoints);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--endpoints: " + e.getMessage());
        }
        return new Connected(client, name -> asLockInfo(client.inspect(name)));
    }

    /**
     * A ZooKeeper queue in {@code inspect}'s terms: its holders (redacted), no ttl (a holder lives
     * as long as its session), no fence (the token is each node's czxid), and its waiters.
     */
    static LockInfo asLockInfo(LockQueue queue) {
        String holders = queue.holders().stream().map(LockQueue.Entry::holder).collect(Collectors.joining(", "));
        return new LockInfo(queue.name(), holders.isEmpty() ? Optional.empty() : Optional.of(holders),
                Optional.empty(), OptionalLong.empty(), queue.waiters(), Optional.empty());
    }
}
