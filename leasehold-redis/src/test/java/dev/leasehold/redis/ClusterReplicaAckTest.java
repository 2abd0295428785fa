package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code withReplicaAck} on a Cluster of three masters with a replica each: the lock's own master
 * waits for its replica, on the connection that carried the grant. A frozen replica (connected, but
 * never acknowledging) is what tells that apart from a {@code WAIT} sent on another connection,
 * which would count that replica at once. About 15 s with its six nodes: in the {@code faults} run.
 */
@Tag("faults")
class ClusterReplicaAckTest {

    private static final Duration ACK_TIMEOUT = Duration.ofMillis(300);
    @RegisterExtension
    static final TestServer<RedisClusterGroup> cluster = TestServer.perClass(() -> RedisClusterGroup.start(3, 1, Duration.ofSeconds(10)));
    private static RedisLockClient client;

    @BeforeAll
    static void start() {
        client = RedisLocks.connectCluster(cluster.get().seedUris().toArray(String[]::new));
    }

    @AfterAll
    static void stop() {
        client.close();
    }

    @AfterEach
    void resumeAll() {
        cluster.get().nodes().stream().filter(RedisServer::isPaused).forEach(RedisServer::resume);
    }

    @Test
    void anAcknowledgedAcquireIsOnItsMastersReplicaWhenItReturns() {
        for (RedisServer master : cluster.get().nodes().subList(0, 3)) {
            String name = nameOn(master, "ack:ok:");
            RedisServer replica = cluster.get().replicasOf(master).get(0);
            try (Lease lease = client.lock(name, LockOptions.watchdog(Duration.ofSeconds(5))
                    .withReplicaAck(1, ACK_TIMEOUT)).acquire(Duration.ofSeconds(2))) {
                assertThat(replica.command("KEYS", name)).as("WAIT returned once %s's replica had it", name)
                        .isEqualTo(List.of(name));
                assertThat(lease.token()).isPositive();
            }
        }
    }

    @Test
    void aFrozenReplicaFailsOnlyTheAcquiresOfItsMasterAndNothingIsLeftHeld() {
        RedisServer master = cluster.get().nodes().get(0);
        RedisServer other = cluster.get().nodes().get(1);
        String frozenName = nameOn(master, "ack:frozen:");
        String otherName = nameOn(other, "ack:other:");
        cluster.get().replicasOf(master).get(0).pause();

        assertThatThrownBy(() -> client.lock(frozenName, LockOptions.fixedLease(Duration.ofSeconds(30))
                .withReplicaAck(1, ACK_TIMEOUT)).acquire(Duration.ofMillis(500)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("acknowledged by 0 replica(s)").hasMessageContaining("released");
        assertThat(master.command("EXISTS", frozenName)).as("nothing left held").isEqualTo(0L);

        try (Lease lease = client.lock(otherName, LockOptions.watchdog(Duration.ofSeconds(5))
                .withReplicaAck(1, ACK_TIMEOUT)).acquire(Duration.ofSeconds(2))) {
            assertThat(lease.isValid()).as("another master's replica acknowledges as before").isTrue();
        }
        assertThatThrownBy(() -> client.lock(otherName, LockOptions.defaults().withReplicaAck(2, ACK_TIMEOUT))
                .acquire(Duration.ofMillis(500)))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("fewer than the 2");
    }

    /** A semaphore's permit waits for its own master's replica, and a frozen one fails it typed, giving it back. */
    @Test
    void anAcknowledgedPermitWaitsForItsMastersReplica() {
        RedisServer master = cluster.get().nodes().get(1);
        String name = nameOn(master, "ack:sem:");
        try (Lease permit = client.semaphore(name, 2, LockOptions.watchdog(Duration.ofSeconds(5))
                .withReplicaAck(1, ACK_TIMEOUT)).acquire(Duration.ofSeconds(2))) {
            // KEYS, which a replica answers itself (a read of a key would be redirected to the master).
            assertThat(cluster.get().replicasOf(master).get(0).command("KEYS", "{" + name + "}:permits"))
                    .as("WAIT returned once the replica had the permit").isEqualTo(List.of("{" + name + "}:permits"));
            assertThat(permit.token()).isPositive();
        }
        String frozen = nameOn(master, "ack:sem:frozen:");
        cluster.get().replicasOf(master).get(0).pause();
        assertThatThrownBy(() -> client.semaphore(frozen, 2, LockOptions.fixedLease(Duration.ofSeconds(30))
                .withReplicaAck(1, ACK_TIMEOUT)).acquire(Duration.ofMillis(500)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("acknowledged by 0 replica(s)").hasMessageContaining("released");
        assertThat(master.command("EXISTS", "{" + frozen + "}:permits")).as("nothing left held").isEqualTo(0L);
    }

    @Test
    void aRenewalItsReplicaDoesNotAcknowledgeDoesNotCountSoTheLeaseEndsByItsDeadline() throws Exception {
        RedisServer master = cluster.get().nodes().get(2);
        Duration ttl = Duration.ofMillis(900);
        Lease lease = client.lock(nameOn(master, "ack:renew:"), LockOptions.watchdog(ttl)
                .withReplicaAck(1, Duration.ofMillis(100))).acquire(Duration.ofSeconds(2));
        cluster.get().replicasOf(master).get(0).pause();
        long paused = System.nanoTime();
        lease.lost().toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - paused)).isLessThanOrEqualTo(ttl.plusMillis(100));
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void anAcquireRedirectedByMovedToAnotherMasterIsNotCountedOnTheOldMastersReplica() {
        RedisServer source = cluster.get().nodes().get(0);
        RedisServer target = cluster.get().nodes().get(1);
        String name = nameOn(source, "ack:moved:");
        cluster.get().replicasOf(target).get(0).pause();
        // The client's topology still names the source: the script gets MOVED and runs on the
        // target, whose replica is frozen; a WAIT on the source would count the source's replica.
        cluster.get().moveSlot(cluster.get().slotOf(name), target, () -> { });

        assertThatThrownBy(() -> client.lock(name, LockOptions.fixedLease(Duration.ofSeconds(30))
                .withReplicaAck(1, ACK_TIMEOUT)).acquire(Duration.ofMillis(500)).close())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("acknowledged by 0 replica(s)").hasMessageContaining("released");
        assertThat(target.command("EXISTS", name)).as("nothing left held").isEqualTo(0L);
    }

    /** A fresh name whose slot {@code master} serves. */
    private static String nameOn(RedisServer master, String prefix) {
        for (int i = 0; ; i++) {
            if (cluster.get().masterOf(cluster.get().slotOf(prefix + i)).equals(master)) {
                return prefix + i;
            }
        }
    }
}
