package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.CounterWorkload;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Hold;
import dev.leasehold.testkit.history.Verdict;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The etcd partition scenarios of issue 19, each history-checked: a holder pinned to one member
 * takes the lock, contenders on the other members queue behind it, then the fault strikes the
 * holder's member: the leader cut off from its peers (its client still reaches it), the leader
 * killed, or the test's clients cut off from a follower (the member stays in the cluster). Each asserts that the fenced resource admits no stale write, that no two holders'
 * claimed intervals overlap (the longest overlap is printed, expected 0 ms), and that the pinned
 * holder's {@code lost()} completed by its local deadline, before any contender got the lock. The
 * last scenario runs a deliberately broken holder through the same partition and sees the checker
 * report the overlap. {@code -Dfaults.minutes=N} repeats each scenario for N minutes (a soak; also
 * raise the JUnit timeout then).
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdNemesisTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration RUN = Duration.ofSeconds(12);
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
    void isolatingTheLeaderFromItsPeersWhileItsClientHoldsNeverGivesTwoHolders() throws Exception {
        EtcdCluster cluster = track(EtcdCluster.startPartitionable(3));
        for (long end = soakEnd(), round = 0; round == 0 || System.nanoTime() - end < 0; round++) {
            int leader = cluster.leader();
            DistributedLock pinned = pinnedClient(cluster.endpoint(leader)).lock("nemesis:isolate", LockOptions.watchdog(TTL));
            Outcome outcome = scenario("isolate the leader", pinned, contenders(cluster, leader, "nemesis:isolate"),
                    () -> cluster.network().isolate(leader), () -> cluster.network().healAll());
            outcome.assertSafe();
        }
    }

    @Test
    void killingTheMemberTheHolderTalksToNeverGivesTwoHolders() throws Exception {
        EtcdCluster cluster = track(EtcdCluster.start(3));
        for (long end = soakEnd(), round = 0; round == 0 || System.nanoTime() - end < 0; round++) {
            int leader = cluster.leader();
            DistributedLock pinned = pinnedClient(cluster.endpoint(leader)).lock("nemesis:kill", LockOptions.watchdog(TTL));
            Outcome outcome = scenario("kill the holder's member (the leader)", pinned, contenders(cluster, leader, "nemesis:kill"),
                    () -> cluster.kill(leader), () -> cluster.restart(leader));
            outcome.assertSafe();
        }
    }

    @Test
    void cuttingTheHoldersClientFromItsMemberNeverGivesTwoHolders() throws Exception {
        EtcdCluster cluster = track(EtcdCluster.startPartitionable(3));
        for (long end = soakEnd(), round = 0; round == 0 || System.nanoTime() - end < 0; round++) {
            int follower = (cluster.leader() + 1) % cluster.size();
            DistributedLock pinned = pinnedClient(cluster.endpoint(follower)).lock("nemesis:client", LockOptions.watchdog(TTL));
            // The test JVM loses that member (the contenders talk to the other two); the member stays in the cluster.
            Outcome outcome = scenario("cut the holder's client from its member", pinned,
                    contenders(cluster, follower, "nemesis:client"),
                    () -> cluster.network().cutFromTestJvm(follower), () -> cluster.network().healFromTestJvm(follower));
            outcome.assertSafe();
        }
    }

    @Test
    void theCheckerReportsTheOverlapOfAHolderThatSwallowsRenewalFailuresBehindAnIsolatedLeader() throws Exception {
        EtcdCluster cluster = track(EtcdCluster.startPartitionable(3));
        int leader = cluster.leader();
        SwallowedRenewalFailures broken = track(new SwallowedRenewalFailures(cluster.endpoint(leader)));
        Outcome outcome = scenario("broken holder behind an isolated leader", broken.lock("nemesis:broken",
                        LockOptions.watchdog(TTL)), contenders(cluster, leader, "nemesis:broken"),
                () -> cluster.network().isolate(leader), () -> cluster.network().healAll());
        assertThat(outcome.verdict().overlaps()).as("the checker reports the broken holder's overlap: " + outcome.verdict())
                .isPositive();
        assertThat(outcome.totalOverlapMillis()).isPositive();
        assertThat(outcome.verdict().staleWritesAdmitted()).as("the guard still refused its stale writes").isZero();
    }

    /** What one scenario run left to check. */
    private record Outcome(String name, Verdict verdict, double overlapMillis, double totalOverlapMillis,
                           PinnedHolder pinned, Hold pinnedHold,
                           OptionalLong firstLaterAcquired) {

        void assertSafe() throws Exception {
            assertThat(verdict.staleWritesAdmitted()).as(name + ": stale writes admitted " + verdict).isZero();
            assertThat(verdict.overlaps()).as(name + ": overlapping holders " + verdict).isZero();
            assertThat(overlapMillis).as(name + ": longest overlap").isZero();
            assertThat(totalOverlapMillis).as(name + ": time with two valid holders").isZero();
            assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
            assertThat(firstLaterAcquired).as(name + ": a contender got the lock after the fault").isPresent();
            assertThat(pinned.lostAt()).as(name + ": the pinned holder learnt of its loss").isDone();
            assertThat(pinned.lostAt().get()).as(name + ": lost() before any contender got the lock")
                    .isLessThan(firstLaterAcquired.getAsLong());
            assertThat(pinnedHold.claimedUntilNanos()).as(name + ": never claimed past its local deadline")
                    .isLessThanOrEqualTo(pinned.lastDeadlineNanos());
        }
    }

    private Outcome scenario(String name, DistributedLock pinnedLock, List<DistributedLock> contenders,
                             Runnable fault, Runnable heal) throws Exception {
        History history = new History();
        CounterResource resource = new CounterResource(history, true);
        Lease lease = pinnedLock.acquire(Duration.ofSeconds(5));
        long acquired = System.nanoTime();
        long ttlMinusDrift = pinnedLock.options().ttl().minus(pinnedLock.options().drift()).toNanos();
        long sent = Math.min(acquired, acquired + lease.remaining().toNanos() - ttlMinusDrift);
        PinnedHolder pinned = new PinnedHolder(lease, resource, history, sent, acquired).start();
        CounterWorkload workload = new CounterWorkload(contenders, resource, history, RUN, 0.0, Duration.ZERO);
        Thread contending = new Thread(() -> {
            try {
                workload.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "contenders");
        contending.start();
        Thread.sleep(1_000); // renewals go through, contenders queue
        long faultAt = System.nanoTime();
        fault.run();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!newerWrite(history, pinned.token()) && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        long newerWriteAt = System.nanoTime();
        pinned.lateWrite();
        Thread.sleep(1_000);
        heal.run();
        contending.join();
        Hold pinnedHold = pinned.finish();
        Verdict verdict = HistoryChecker.check(history);
        double overlap = Overlaps.maxMillis(history.holds());
        double totalOverlap = Overlaps.totalMillis(history.holds());
        OptionalLong later = history.holds().stream().filter(hold -> hold.token() > pinned.token())
                .mapToLong(Hold::acquiredNanos).min();
        System.out.printf("%s: two valid holders for %.1f ms in all (longest pair %.1f ms); pinned holder lost() %s after the fault,"
                        + " %s after its last local deadline; first contender %s after the fault; newer write %.0f ms"
                        + " after the fault; %s%n", name, totalOverlap, overlap,
                pinned.lostAt().isDone() ? millis(pinned.lostAt().get() - faultAt) : "never",
                pinned.lostAt().isDone() ? millis(pinned.lostAt().get() - pinned.lastDeadlineNanos()) : "-",
                later.isPresent() ? millis(later.getAsLong() - faultAt) : "never", (newerWriteAt - faultAt) / 1e6, verdict);
        return new Outcome(name, verdict, overlap, totalOverlap, pinned, pinnedHold, later);
    }

    private static boolean newerWrite(History history, long token) {
        return history.writes().stream().anyMatch(write -> write.admitted() && write.token() > token);
    }

    private static String millis(long nanos) {
        return String.format("%.1f ms", nanos / 1e6);
    }

    private EtcdLockClient pinnedClient(String endpoint) {
        return track(EtcdLocks.builder().endpoints(endpoint).operationTimeout(Duration.ofMillis(500)).connect());
    }

    /** Two clients on the members other than {@code excluded}, two workers each. */
    private List<DistributedLock> contenders(EtcdCluster cluster, int excluded, String name) {
        String others = String.join(",", IntStream.range(0, cluster.size()).filter(i -> i != excluded)
                .mapToObj(cluster::endpoint).toList());
        List<DistributedLock> locks = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            EtcdLockClient client = track(EtcdLocks.builder().endpoints(others).operationTimeout(Duration.ofSeconds(1)).connect());
            for (int t = 0; t < 2; t++) {
                locks.add(client.lock(name, LockOptions.watchdog(TTL)));
            }
        }
        return locks;
    }

    private static long soakEnd() {
        return System.nanoTime() + TimeUnit.MINUTES.toNanos(Long.getLong("faults.minutes", 0));
    }
}
