package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.StaleTokenException;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.CounterWorkload;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Verdict;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Faults against a real three-member etcd cluster: leaders killed while clients hold and wait, and a
 * holder cut off from the cluster. Every workload's history goes through the {@link HistoryChecker}.
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdFaultTest {

    private static final Duration RUN = Duration.ofSeconds(10);
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    @Test
    void killedLeadersNeverGrantTwiceAndWaitersProceedWithGrowingTokens() throws Exception {
        EtcdCluster cluster = track(EtcdCluster.start(3));
        List<DistributedLock> locks = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            EtcdLockClient client = track(EtcdLocks.connect(cluster.endpoints()));
            for (int t = 0; t < 3; t++) {
                locks.add(client.lock("fault:counter", LockOptions.watchdog(Duration.ofSeconds(2))));
            }
        }
        History history = new History();
        CounterResource resource = new CounterResource(history, true);
        Thread chaos = new Thread(() -> {
            try {
                for (int round = 0; round < 2; round++) {
                    Thread.sleep(1_500);
                    int leader = cluster.leader();
                    cluster.kill(leader);
                    Thread.sleep(2_000);
                    cluster.restart(leader);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "etcd-chaos");
        chaos.start();
        new CounterWorkload(locks, resource, history, RUN, 0.0, Duration.ZERO).run();
        chaos.join();
        Verdict verdict = HistoryChecker.check(history);
        System.out.println(verdict);
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
        assertThat(verdict.overlaps()).as("no two valid leases at once").isZero();
        assertThat(verdict.tokenInversions()).isZero();
        assertThat(verdict.holds()).as("waiters proceeded through the elections").isGreaterThan(20);
    }

    @Test
    void aPartitionedHolderLearnsItLostTheLockBeforeAnotherGetsItAndItsLateWriteIsRefused() throws Exception {
        EtcdCluster cluster = track(EtcdCluster.start(3));
        FaultProxy proxy = track(FaultProxy.start("127.0.0.1", cluster.clientPort(0)));
        EtcdLockClient cutOff = track(EtcdLocks.builder().endpoints("http://" + proxy.host() + ":" + proxy.port())
                .operationTimeout(Duration.ofMillis(500)).connect());
        EtcdLockClient other = track(EtcdLocks.connect(cluster.endpoints()));
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        Duration ttl = Duration.ofSeconds(2);
        // Connected before the cut: reading the servers at the loss must not wait for a new channel.
        Client admin = track(Client.builder().endpoints(cluster.endpoints().split(",")).build());
        ByteSequence prefix = ByteSequence.from("leasehold/fault:partition/", StandardCharsets.UTF_8);
        admin.getKVClient().get(prefix, GetOption.builder().isPrefix(true).withCountOnly(true).build())
                .get(10, TimeUnit.SECONDS);

        Lease old = cutOff.lock("fault:partition", LockOptions.watchdog(ttl)).acquire(Duration.ofSeconds(5));
        guard.admit("account:7", old.token(), () -> "first write");
        Thread.sleep(1_000); // a renewal or two went through
        long cut = System.nanoTime();
        proxy.blackhole();
        CompletableFuture<Long> lostAt = old.lost().toCompletableFuture().thenApply(lost -> System.nanoTime());
        // What the servers hold once the holder learned of its loss: its own key (created at its
        // token), still alive. Sent from the stamped stage, without blocking the thread that signals.
        CompletableFuture<Boolean> oldKeyAtLoss = lostAt
                .thenCompose(at -> admin.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build()))
                .thenApply(found -> found.getKvs().stream().anyMatch(kv -> kv.getCreateRevision() == old.token()));
        CompletableFuture<Lease> next = other.lock("fault:partition").acquireAsync(Duration.ofSeconds(20));
        Lease taken = next.get(20, TimeUnit.SECONDS);
        long takenAt = System.nanoTime();

        assertThat(lostAt).as("lost() completed before another client got the lock").isDone();
        assertThat(lostAt.get()).isLessThan(takenAt);
        assertThat(Duration.ofNanos(lostAt.get() - cut)).as("lost within one ttl of the cut").isLessThan(ttl);
        assertThat(oldKeyAtLoss.get(10, TimeUnit.SECONDS)).as("the old key outlived the holder's trust in it")
                .isTrue();
        assertThat(taken.token()).isGreaterThan(old.token());
        guard.admit("account:7", taken.token(), () -> "new holder's write");
        assertThatThrownBy(() -> guard.admit("account:7", old.token(), () -> "late write"))
                .isInstanceOf(StaleTokenException.class);
        taken.release();
        proxy.pass();
    }
}
