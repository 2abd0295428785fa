package dev.leasehold.zookeeper;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockOptions;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.CounterWorkload;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Hold;
import dev.leasehold.testkit.history.Verdict;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ensemble loses its leader while holders hold and waiters wait: every run's history goes
 * through the {@link HistoryChecker}. Bounded to about half a minute; in the {@code faults} profile.
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperFaultTest {

    private static final Duration RUN = Duration.ofSeconds(12);

    @Test
    void killingTheLeaderDuringHoldsAndWaitsGrantsNoLockTwice() throws Exception {
        try (Ensemble ensemble = Ensemble.start()) {
            List<ZooKeeperLockClient> clients = new ArrayList<>();
            List<DistributedLock> locks = new ArrayList<>();
            try {
                for (int c = 0; c < 3; c++) {
                    ZooKeeperLockClient client = TestClients.connect(ensemble);
                    clients.add(client);
                    for (int t = 0; t < 2; t++) {
                        locks.add(c % 2 == 0 ? client.lock("fault:counter", LockOptions.watchdog(Duration.ofSeconds(2)))
                                : client.fairLock("fault:counter", LockOptions.watchdog(Duration.ofSeconds(2))));
                    }
                }
                History history = new History();
                CounterResource resource = new CounterResource(history, true);
                long[] killedAt = new long[1];
                Thread killer = new Thread(() -> {
                    try {
                        Thread.sleep(3_000);
                        killedAt[0] = System.nanoTime();
                        InstanceSpec leader = ensemble.killLeader();
                        Thread.sleep(4_000);
                        ensemble.restart(leader);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "leader-killer");
                killer.start();
                new CounterWorkload(locks, resource, history, RUN, 0.05, Duration.ofMillis(300)).run();
                killer.join();

                Verdict verdict = HistoryChecker.check(history);
                System.out.println(verdict);
                assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
                assertThat(verdict.overlaps()).isZero();
                assertThat(verdict.tokenInversions()).isZero();
                long afterKill = history.holds().stream().map(Hold::acquiredNanos)
                        .filter(at -> at > killedAt[0] + TimeUnit.SECONDS.toNanos(1)).count();
                assertThat(afterKill).as("waiters proceed once a new leader is elected").isGreaterThan(10);
                assertThat(verdict.holds()).isGreaterThan(20);
            } finally {
                clients.forEach(ZooKeeperLockClient::close);
            }
        }
    }
}
