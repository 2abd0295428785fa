package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.testkit.junit.TestServer;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Connecting through {@code redis-sentinel://}, on the contract suites' master with a replica behind
 * three Sentinels ({@link SentinelLockContractTest}; failovers are in {@link SentinelFailoverTest}).
 */
class SentinelDeploymentTest {

    @RegisterExtension
    static final TestServer<RedisSentinelGroup> sentinel = RedisContractBackend.sentinelGroup();

    @Test
    void aSentinelUriWithoutAMasterNameIsRefusedBeforeConnecting() {
        String noMaster = sentinel.get().uri().substring(0, sentinel.get().uri().indexOf('#'));
        assertThatThrownBy(() -> RedisLocks.connect(noMaster))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names no master")
                .hasMessageNotContaining("contract-secret");
    }

    @Test
    void anUnknownMasterNameOrAWrongPasswordIsUnavailableAndLeavesNothingOpen() throws InterruptedException {
        assertThatThrownBy(() -> RedisLocks.connect(sentinel.get().uri().replace("#mymaster", "#nosuchmaster")))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("nosuchmaster")
                .hasMessageNotContaining("contract-secret");
        assertThatThrownBy(() -> RedisLocks.connect(sentinel.get().uri().replace("contract-secret@", "wrong-secret@")))
                .isInstanceOf(LockUnavailableException.class).hasMessageNotContaining("wrong-secret");
        assertThat(ServerProbe.clientThreadsAfterShutdown()).as("no thread left running").isEmpty();
    }

    @Test
    void theClientDescribesTheSentinelsAndTheMasterNameWithoutThePassword() {
        try (RedisLockClient client = RedisLocks.connect(sentinel.get().uri())) {
            assertThat(client.describe()).startsWith("redis-sentinel://127.0.0.1:").endsWith("#mymaster")
                    .doesNotContain("contract-secret");
        }
    }

    /** Through the Sentinels, a permit is acknowledged by the master's replica like a lock. */
    @Test
    void anAcknowledgedPermitIsOnTheReplicaWhenItReturns() {
        LockOptions acked = LockOptions.watchdog(Duration.ofSeconds(5)).withReplicaAck(1, Duration.ofMillis(500));
        try (RedisLockClient client = RedisLocks.connect(sentinel.get().uri());
             Lease permit = client.semaphore("sentinel:ack:sem", 2, acked).acquire(Duration.ofSeconds(2))) {
            RedisServer replica = sentinel.get().replicas().get(0);
            assertThat(replica.command("GET", "{sentinel:ack:sem}:fence")).as("WAIT returned once the replica had it")
                    .isEqualTo(Long.toString(permit.token()));
        }
    }
}
