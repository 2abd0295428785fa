package dev.leasehold.redis;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/**
 * Every lock kind's contract through {@code redis-sentinel://}, on a master with a replica behind
 * three Sentinels. The Sentinels wait 5 s before calling the master down, so the contract's brief
 * freezes of the master cause no failover (failovers are in {@link SentinelFailoverTest}).
 */
class SentinelContractTest extends DeploymentContract {

    private static RedisSentinelGroup group;

    @BeforeAll
    static void startGroup() {
        group = RedisSentinelGroup.start(1, "contract-secret", Duration.ofSeconds(5));
    }

    @AfterAll
    static void stopGroup() {
        group.close();
    }

    @Override
    LockClient connectDeployment() {
        return RedisLocks.connect(group.uri());
    }

    @Override
    AutoCloseable pauseDeployment() {
        RedisServer master = group.master();
        master.pause();
        return master::resume;
    }
}
