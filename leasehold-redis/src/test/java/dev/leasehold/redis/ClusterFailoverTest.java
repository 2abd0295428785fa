package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.CounterWorkload;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Verdict;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Resharding and failover of a real Cluster (three masters with a replica each) under load: a slot
 * moved while its lock is held and waited for ({@code ASK} while migrating, {@code MOVED} after),
 * and a manual failover of the master holding a lock. The history checker finds no double grant
 * and no stale write admitted.
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterFailoverTest {

    @RegisterExtension
    static final TestServer<RedisClusterGroup> cluster = TestServer.perClass(() -> RedisClusterGroup.start(3, 1));

    private static RedisLockClient connect() {
        return RedisLocks.builder().cluster(cluster.get().seedUris().toArray(String[]::new))
                .operationTimeout(Duration.ofSeconds(2)).connect();
    }

    @Test
    void movingTheSlotOfALockUnderLoadLosesNoLeaseAndGrantsNoneTwice() throws Exception {
        String name = "reshard:counter";
        int slot = cluster.get().slotOf(name);
        List<RedisLockClient> clients = List.of(connect(), connect());
        try {
            List<DistributedLock> locks = new ArrayList<>();
            for (RedisLockClient client : clients) {
                locks.add(client.lock(name, LockOptions.watchdog(Duration.ofMillis(600))));
                locks.add(client.lock(name, LockOptions.watchdog(Duration.ofMillis(600))));
            }
            History history = new History();
            CounterResource resource = new CounterResource(history, true);
            Thread mover = new Thread(() -> {
                sleep(1_500);
                for (int move = 0; move < 2; move++) {
                    RedisServer owner = cluster.get().masterOf(slot);
                    RedisServer target = cluster.get().nodes().stream()
                            .filter(n -> n != owner && n.command("ROLE").toString().startsWith("[master"))
                            .findFirst().orElseThrow();
                    cluster.get().moveSlot(slot, target, () -> sleep(700));
                    System.out.println("slot " + slot + " of '" + name + "' moved from port " + owner.port() + " to "
                            + target.port());
                    sleep(1_500);
                }
            }, "slot-mover");
            mover.start();
            long errors = new CounterWorkload(locks, resource, history, Duration.ofSeconds(7), 0.0, Duration.ZERO).run();
            mover.join();
            Verdict verdict = HistoryChecker.check(history);
            System.out.println(verdict + ", backend errors " + errors);
            assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
            assertThat(verdict.holds()).as("progress through both moves").isGreaterThan(20);
        } finally {
            clients.forEach(RedisLockClient::close);
        }
    }

    @Test
    void aManualFailoverKeepsTheHeldLeaseAndTheWaiterGetsTheLockFromTheNewMaster() throws Exception {
        String name = "failover:cluster";
        try (RedisLockClient holder = connect(); RedisLockClient waiter = connect()) {
            Lease held = holder.lock(name, LockOptions.watchdog(Duration.ofSeconds(2))).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = waiter.lock(name).acquireAsync(Duration.ofSeconds(60)).toCompletableFuture();
            Thread.sleep(300);
            RedisServer master = cluster.get().masterOf(cluster.get().slotOf(name));
            RedisServer replica = cluster.get().replicasOf(master).get(0);
            cluster.get().failover(replica);
            assertThat(cluster.get().masterOf(cluster.get().slotOf(name))).isSameAs(replica);
            Thread.sleep(2_500);
            assertThat(held.isValid()).as("renewed on the promoted master").isTrue();
            assertThat(waiting).isNotDone();
            held.release();
            Lease next = waiting.get(10, TimeUnit.SECONDS);
            assertThat(next.token()).isGreaterThan(held.token());
            next.release();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
