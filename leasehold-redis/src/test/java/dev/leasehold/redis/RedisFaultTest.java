package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockOptions;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.CounterWorkload;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Verdict;
import dev.leasehold.launcher.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault-injection runs: holders that pause past their lease, a server that is frozen, killed and
 * restarted, a network that stalls; every run's history goes through the {@link HistoryChecker}.
 * The checker is first shown to catch a deliberately broken lock and an unguarded resource.
 * Run with {@code mvn -Pfaults verify}; each scenario is bounded to a few seconds of load.
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisFaultTest {

    private static final Duration RUN = Duration.ofSeconds(8);
    private static final Duration TTL = Duration.ofMillis(400);
    private static final Duration PAUSE = Duration.ofMillis(700);

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

    private List<DistributedLock> leaseholdLocks(String uri, int clients, int threadsPerClient, LockOptions options) {
        List<DistributedLock> locks = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            RedisLockClient client = track(RedisLocks.builder().uri(uri).operationTimeout(Duration.ofMillis(500)).connect());
            for (int t = 0; t < threadsPerClient; t++) {
                locks.add(client.lock("fault:counter", options));
            }
        }
        return locks;
    }

    private static Verdict run(List<DistributedLock> locks, boolean guarded, double pauseChance) throws InterruptedException {
        History history = new History();
        CounterResource resource = new CounterResource(history, guarded);
        new CounterWorkload(locks, resource, history, RUN, pauseChance, PAUSE).run();
        Verdict verdict = HistoryChecker.check(history);
        System.out.println(verdict);
        assertThat(verdict.holds()).as("the run made progress").isGreaterThan(20);
        return verdict;
    }

    @Test
    void theCheckerCatchesTheNaiveSetNxDelLock() throws Exception {
        RedisServer server = track(RedisServer.builder().start());
        RedisClient redis = RedisClient.create(server.uri());
        resources.add(redis::shutdown);
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            StatefulRedisConnection<String, String> connection = track(redis.connect());
            locks.add(new NaiveRedisLock(connection.sync(), "fault:counter", TTL));
        }
        Verdict verdict = run(locks, false, 0.2);
        assertThat(verdict.isValid()).isFalse();
        assertThat(verdict.overlaps()).as("two holders at once").isPositive();
        assertThat(verdict.lostUpdates()).as("updates lost").isPositive();
    }

    @Test
    void leaseholdAloneKeepsHoldersApartButAnUnguardedResourceStillLosesUpdates() throws Exception {
        RedisServer server = track(RedisServer.builder().start());
        Verdict verdict = run(leaseholdLocks(server.uri(), 2, 2, LockOptions.fixedLease(TTL)), false, 0.2);
        assertThat(verdict.overlaps()).as("no two valid leases at once").isZero();
        assertThat(verdict.tokenInversions()).isZero();
        assertThat(verdict.lostUpdates()).as("a paused holder's late write lands").isPositive();
    }

    @Test
    void leaseholdWithAGuardLosesNothingWhenHoldersPausePastTheirLease() throws Exception {
        RedisServer server = track(RedisServer.builder().start());
        Verdict verdict = run(leaseholdLocks(server.uri(), 2, 2, LockOptions.fixedLease(TTL)), true, 0.2);
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
        assertThat(verdict.refusedWrites()).as("late writes were refused").isPositive();
    }

    @Test
    void frozenServerAndStallingNetworkBreakNothingGuarded() throws Exception {
        RedisServer server = track(RedisServer.builder().start());
        FaultProxy proxy = track(FaultProxy.start(server.host(), server.port()));
        List<DistributedLock> locks = leaseholdLocks("redis://" + proxy.host() + ":" + proxy.port(), 2, 2,
                LockOptions.watchdog(TTL));
        Verdict verdict;
        try {
            verdict = runUnderChaos(locks, 0.1, () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                sleep(300 + random.nextInt(400));
                switch (random.nextInt(3)) {
                    case 0 -> {
                        server.pause();
                        sleep(200 + random.nextInt(600));
                        server.resume();
                    }
                    case 1 -> {
                        proxy.latency(Duration.ofMillis(50 + random.nextInt(400)));
                        sleep(300 + random.nextInt(500));
                        proxy.pass();
                    }
                    default -> proxy.cutAll();
                }
            });
        } finally {
            proxy.pass();
            if (server.isPaused()) {
                server.resume();
            }
        }
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
    }

    @Test
    void killAndRestartWithFsyncAlwaysKeepsHoldersApartAndTokensRising() throws Exception {
        RedisServer server = track(RedisServer.builder().appendFsyncAlways().start());
        List<DistributedLock> locks = leaseholdLocks(server.uri(), 2, 2, LockOptions.watchdog(TTL));
        Verdict verdict = runUnderChaos(locks, 0.05, () -> {
            sleep(1_500);
            server.kill();
            sleep(100);
            server.restart();
        });
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
    }

    @Test
    void restartWithoutPersistenceMayGrantTwiceButTheGuardStillLosesNothing() throws Exception {
        RedisServer server = track(RedisServer.builder().start());
        List<DistributedLock> locks = leaseholdLocks(server.uri(), 2, 2, LockOptions.watchdog(Duration.ofSeconds(2)));
        Verdict verdict = runUnderChaos(locks, 0.05, () -> {
            sleep(1_500);
            server.kill();
            server.restart();
        });
        // The documented failure mode: the restarted server forgot the key, so a second holder may
        // have been granted the lock while the first still held a valid lease.
        System.out.println("overlapping holders after restarts without persistence: " + verdict.overlaps());
        assertThat(verdict.staleWritesAdmitted()).isZero();
        assertThat(verdict.lostUpdates()).isZero();
    }

    /** A guarded run while a chaos thread repeats {@code fault} until the workload ends. */
    private static Verdict runUnderChaos(List<DistributedLock> locks, double pauseChance, Runnable fault)
            throws InterruptedException {
        AtomicBoolean chaos = new AtomicBoolean(true);
        Thread chaosThread = new Thread(() -> {
            while (chaos.get()) {
                fault.run();
            }
        }, "chaos");
        chaosThread.start();
        try {
            return run(locks, true, pauseChance);
        } finally {
            chaos.set(false);
            chaosThread.join();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
