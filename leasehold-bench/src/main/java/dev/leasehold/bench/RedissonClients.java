package dev.leasehold.bench;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;

import java.time.Duration;
import java.util.List;

/** Redisson clients configured as a user would, apart from the watchdog ttl the workload asks for. */
final class RedissonClients {

    private RedissonClients() {
    }

    /**
     * A client on one server with Redisson's defaults (connection pool, threads, renewal
     * batching) and {@code ttl} as its lock watchdog timeout: renewal every ttl/3, like Leasehold.
     */
    static RedissonClient connect(String uri, Duration ttl) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri);
        config.setLockWatchdogTimeout(ttl.toMillis());
        return Redisson.create(config);
    }

    /**
     * A client on the master that {@code sentinels} watch under {@code masterName}, with Redisson's
     * defaults otherwise. Redisson 4 follows each lock command with {@code WAIT} for every replica it
     * knows (up to {@code slavesSyncTimeout}, 1 s), on Sentinel and Cluster alike.
     */
    static RedissonClient sentinel(String masterName, List<String> sentinels, Duration ttl) {
        Config config = new Config();
        SentinelServersConfig servers = config.useSentinelServers().setMasterName(masterName);
        sentinels.forEach(servers::addSentinelAddress);
        config.setLockWatchdogTimeout(ttl.toMillis());
        return Redisson.create(config);
    }

    /** A client on the Cluster that {@code seeds} belong to, with Redisson's defaults otherwise. */
    static RedissonClient cluster(List<String> seeds, Duration ttl) {
        Config config = new Config();
        ClusterServersConfig servers = config.useClusterServers();
        seeds.forEach(servers::addNodeAddress);
        config.setLockWatchdogTimeout(ttl.toMillis());
        return Redisson.create(config);
    }
}
