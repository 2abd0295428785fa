package dev.leasehold.redis;

import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Connecting to, keying and renewing on the contract suites' Redis Cluster of three masters
 * ({@link ClusterLockContractTest}; failovers are in {@link ClusterFailoverTest}).
 */
class ClusterDeploymentTest {

    @RegisterExtension
    static final TestServer<RedisClusterGroup> clusterGroup = RedisContractBackend.clusterGroup();

    @Test
    void aStandaloneServerAsSeedIsRefusedAndLeavesNothingOpen() throws InterruptedException {
        Set<String> before = ServerProbe.clientThreadsAfterShutdown();
        try (RedisServer standalone = RedisServer.builder().start()) {
            assertThatThrownBy(() -> RedisLocks.connectCluster(standalone.uri()))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("not a Redis Cluster node");
            try (RedisLockClient replaced = RedisLocks.builder().cluster(cluster().seedUris().get(0))
                    .uri(RedisURI.create(standalone.uri())).connect()) {
                assertThat(replaced.describe()).as("uri(RedisURI) replaces the cluster").isEqualTo(standalone.uri());
            }
        }
        assertThatThrownBy(() -> RedisLocks.connectCluster())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one seed");
        assertThatThrownBy(() -> RedisLocks.connectCluster("redis-sentinel://127.0.0.1:1#m"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a Sentinel URI");
        assertThat(ServerProbe.clientThreadsAfterShutdown()).as("no thread left running").isSubsetOf(before);
    }

    /**
     * {@code redis-cluster://password@host:port,...}, the form a command-line option or environment
     * variable takes, reaches every master with the password; the password shows in no message.
     */
    @Test
    void theOneStringClusterFormConnectsWithItsPasswordOnEveryNode() {
        String password = "cluster-uri-secret";
        List<RedisServer> masters = cluster().nodes();
        List<String> names = masters.stream().map(ClusterDeploymentTest::nameOn).toList();
        String hosts = String.join(",", masters.stream().map(n -> n.host() + ":" + n.port()).toList());
        masters.forEach(node -> node.command("CONFIG", "SET", "requirepass", password));
        try {
            try (RedisLockClient client = RedisLocks.connect("redis-cluster://:" + password + "@" + hosts)) {
                for (String name : names) {
                    try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
                        assertThat(client.inspect(name).lastToken()).as(name).hasValue(lease.token());
                    }
                }
                assertThat(client.toString()).doesNotContain(password);
            }
            assertThatThrownBy(() -> RedisLocks.connect("redis-cluster://:wrong-" + password + "@" + hosts))
                    .isInstanceOf(LockUnavailableException.class).hasMessageNotContaining(password);
        } finally {
            masters.forEach(node -> clearPassword(node, password));
        }
    }

    private static void clearPassword(RedisServer node, String password) {
        RedisClient client = RedisClient.create(RedisURI.builder().withHost(node.host()).withPort(node.port())
                .withPassword(password.toCharArray()).build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().configSet("requirepass", "");
        } finally {
            client.shutdown();
        }
    }

    /** A name whose slot {@code master} serves. */
    private static String nameOn(RedisServer master) {
        for (int i = 0; ; i++) {
            if (cluster().masterOf(cluster().slotOf("uri:" + i)).equals(master)) {
                return "uri:" + i;
            }
        }
    }

    /** Without replicas, an acknowledged acquire cannot be: a typed error, and nothing left held. */
    @Test
    void replicaAcknowledgementWithoutReplicasFailsAndLeavesNothingHeld() {
        try (LockClient client = connectDeployment()) {
            assertThatThrownBy(() -> client.lock("ack:cluster", LockOptions.defaults()
                    .withReplicaAck(1, Duration.ofMillis(100))).acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("acknowledged by 0 replica(s)");
            assertThat(cluster().masterOf(cluster().slotOf("ack:cluster")).command("EXISTS", "ack:cluster")).isEqualTo(0L);
            assertThatThrownBy(() -> client.semaphore("ack:cluster:sem", 2, LockOptions.defaults()
                    .withReplicaAck(1, Duration.ofMillis(100))).acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("acknowledged by 0 replica(s)");
            assertThat(cluster().masterOf(cluster().slotOf("ack:cluster:sem")).command("EXISTS", "{ack:cluster:sem}:permits"))
                    .as("the permit was given back").isEqualTo(0L);
        }
    }

    @Test
    void everyKeyOfALockSharesOneSlotAndATaggedNameStaysInItsTagsSlot() {
        try (RedisLockClient client = (RedisLockClient) connectDeployment()) {
            for (String name : List.of("order:1", "{customer:7}:order:9")) {
                try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5));
                     Lease read = client.readWriteLock(name + ":rw").readLock().acquire(Duration.ofSeconds(5))) {
                    LockKeys keys = LockKeys.of(name);
                    int slot = cluster().slotOf(name);
                    RedisServer owner = cluster().masterOf(slot);
                    assertThat(List.of(keys.fence(), keys.waiters(), keys.channel()))
                            .allSatisfy(key -> assertThat(cluster().slotOf(key)).as(key).isEqualTo(slot));
                    assertThat(owner.command("GET", name)).as("the lock key lives on the slot's master").isNotNull();
                    assertThat(lease.token()).isPositive();
                    assertThat(read.token()).isGreaterThan(0);
                    assertThat(client.inspect(name).lastToken()).hasValue(lease.token());
                    assertThat(client.list("*")).as("list scans every master, one slot per script call")
                            .extracting(LockInfo::name).contains(name, name + ":rw");
                    assertThat(client.inspect(name + ":rw").kind()).as("the readers, read in their slot")
                            .hasValue(LockKind.READ);
                }
            }
            assertThat(cluster().slotOf("{customer:7}:order:9")).isEqualTo(cluster().slotOf("customer:7"));
        }
    }

    /**
     * Watchdog leases on 48 hash tags spread over every master, renewed for three ttl periods: a
     * renewal round costs one script call per slot it touches (a Cluster refuses a script over
     * several slots), never one per lease, and no lease is lost. 200 leases here; a thousand in the
     * faults run.
     */
    @Test
    void leasesAcrossTheSlotsAreRenewedInOneCallPerSlotPerRound() throws Exception {
        renewManyLeases(200);
    }

    @Test
    @Tag("faults")
    void aThousandLeasesAcrossTheSlotsAreRenewedInOneCallPerSlotPerRound() throws Exception {
        renewManyLeases(1000);
    }

    private void renewManyLeases(int count) throws Exception {
        Duration ttl = Duration.ofMillis(1500);
        try (RedisLockClient client = (RedisLockClient) connectDeployment()) {
            long start = System.nanoTime();
            Set<RedisServer> masters = new HashSet<>();
            for (int tag = 0; tag < 48; tag++) {
                masters.add(cluster().masterOf(cluster().slotOf("tag-" + tag)));
            }
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                // Leases taken one after the other share a tag, so those falling due together share a slot.
                String name = "{tag-" + (i * 48 / count) + "}:lease-" + i;
                leases.add(client.lock(name, LockOptions.watchdog(ttl)).acquire(Duration.ofSeconds(10)));
            }
            long acquiredMillis = (System.nanoTime() - start) / 1_000_000;
            RenewalBatch.Stats before = client.mutexRenewalStats();
            Thread.sleep(ttl.multipliedBy(3).toMillis());
            RenewalBatch.Stats after = client.mutexRenewalStats();
            long rounds = after.flushes() - before.flushes();
            long calls = after.calls() - before.calls();
            long slots = after.groups() - before.groups();
            long renewals = after.renewals() - before.renewals();
            System.out.printf("%d leases on 48 slots over %d masters, acquired in %d ms: %d renewal rounds in 3 ttls, "
                    + "%d renewals in %d script calls (%.1f calls per round)%n", count, masters.size(), acquiredMillis,
                    rounds, renewals, calls, calls / (double) Math.max(1, rounds));
            assertThat(masters).as("the tags spread over every master").hasSize(3);
            assertThat(leases).allMatch(Lease::isValid);
            assertThat(rounds).as("renewed every ttl/3").isGreaterThanOrEqualTo(6);
            assertThat(calls).as("one call per slot per round").isEqualTo(slots);
            assertThat(renewals).as("every lease renewed about 9 times").isGreaterThanOrEqualTo(count * 6L);
            assertThat(calls).as("never one per lease").isLessThan(renewals / 2);
            leases.forEach(Lease::release);
        }
    }

    private static RedisClusterGroup cluster() {
        return clusterGroup.get();
    }

    private static LockClient connectDeployment() {
        return RedisContractBackend.cluster(cluster()).connect();
    }
}
