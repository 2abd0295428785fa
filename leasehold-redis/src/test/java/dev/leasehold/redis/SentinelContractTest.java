package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.leasehold.LockUnavailableException;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void aSentinelUriWithoutAMasterNameIsRefusedBeforeConnecting() {
        String noMaster = group.uri().substring(0, group.uri().indexOf('#'));
        assertThatThrownBy(() -> RedisLocks.connect(noMaster))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names no master")
                .hasMessageNotContaining("contract-secret");
    }

    @Test
    void anUnknownMasterNameOrAWrongPasswordIsUnavailableAndLeavesNothingOpen() throws InterruptedException {
        assertThatThrownBy(() -> RedisLocks.connect(group.uri().replace("#mymaster", "#nosuchmaster")))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("nosuchmaster")
                .hasMessageNotContaining("contract-secret");
        assertThatThrownBy(() -> RedisLocks.connect(group.uri().replace("contract-secret@", "wrong-secret@")))
                .isInstanceOf(LockUnavailableException.class).hasMessageNotContaining("wrong-secret");
        assertThat(ServerProbe.clientThreadsAfterShutdown()).as("no thread left running").isEmpty();
    }

    @Test
    void theClientDescribesTheSentinelsAndTheMasterNameWithoutThePassword() {
        try (RedisLockClient client = RedisLocks.connect(group.uri())) {
            assertThat(client.describe()).startsWith("redis-sentinel://127.0.0.1:").endsWith("#mymaster")
                    .doesNotContain("contract-secret");
        }
    }

    /** Through the Sentinels, a permit is acknowledged by the master's replica like a lock. */
    @Test
    void anAcknowledgedPermitIsOnTheReplicaWhenItReturns() {
        LockOptions acked = LockOptions.watchdog(Duration.ofSeconds(5)).withReplicaAck(1, Duration.ofMillis(500));
        try (RedisLockClient client = RedisLocks.connect(group.uri());
             Lease permit = client.semaphore("sentinel:ack:sem", 2, acked).acquire(Duration.ofSeconds(2))) {
            RedisServer replica = group.replicas().get(0);
            assertThat(replica.command("GET", "{sentinel:ack:sem}:fence")).as("WAIT returned once the replica had it")
                    .isEqualTo(Long.toString(permit.token()));
        }
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
