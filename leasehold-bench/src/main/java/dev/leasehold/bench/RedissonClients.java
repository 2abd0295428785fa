package dev.leasehold.bench;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;

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
}
