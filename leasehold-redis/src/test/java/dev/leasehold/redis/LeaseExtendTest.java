package dev.leasehold.redis;

import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Lease#extend(Duration)} on a real server: compare-and-extend, never revive, never shorten. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseExtendTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        if (server.get().isPaused()) {
            server.get().resume();
        }
        clients.forEach(RedisLockClient::close);
        clients.clear();
    }

    private RedisLockClient client(Duration operationTimeout) {
        RedisLockClient client = RedisLocks.builder().uri(server.get().uri()).operationTimeout(operationTimeout).connect();
        clients.add(client);
        return client;
    }

    private RedisLockClient client() {
        return client(Duration.ofSeconds(3));
    }

    private static long pttl(String key) {
        return (Long) server.get().command("PTTL", key);
    }

    @Test
    void extendingAHeldFixedLeaseMovesTheServerTtlAndTheLocalDeadline() throws Exception {
        Lease lease = client().lock("extend:fixed", LockOptions.fixedLease(Duration.ofMillis(500))).acquire(WAIT);
        assertThat(pttl("extend:fixed")).isLessThanOrEqualTo(500);
        lease.extend(Duration.ofSeconds(10));
        assertThat(pttl("extend:fixed")).isBetween(9_000L, 10_000L);
        assertThat(lease.remaining()).isGreaterThan(Duration.ofMillis(9_500));
        Thread.sleep(700);
        assertThat(lease.isValid()).as("valid past its original lease time").isTrue();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
    }

    @Test
    void extendAsyncMovesTheServerTtlWithoutBlockingAndRefusesALostLease() throws Exception {
        Lease lease = client().lock("extend:async", LockOptions.fixedLease(Duration.ofMillis(500))).acquire(WAIT);
        lease.extendAsync(Duration.ofSeconds(10)).get(5, TimeUnit.SECONDS);
        assertThat(pttl("extend:async")).isBetween(9_000L, 10_000L);
        assertThat(lease.remaining()).isGreaterThan(Duration.ofMillis(9_500));
        server.get().command("SET", "extend:async", "someone-else");
        assertThatThrownBy(() -> lease.extendAsync(Duration.ofSeconds(10)).get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(LeaseLostException.class);
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(() -> lease.extendAsync(Duration.ofSeconds(10))).as("already lost: at once")
                .isInstanceOf(LeaseLostException.class);
        assertThat(server.get().command("GET", "extend:async")).isEqualTo("someone-else");
        server.get().command("DEL", "extend:async");
    }

    @Test
    void extendNeverShortensALease() {
        Lease lease = client().lock("extend:shorter", LockOptions.fixedLease(Duration.ofSeconds(10))).acquire(WAIT);
        lease.extend(Duration.ofMillis(100));
        assertThat(pttl("extend:shorter")).isGreaterThan(9_000L);
        assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(9));
        lease.release();
    }

    @Test
    void theWatchdogKeepsALongerHorizonSetByAnExtension() throws Exception {
        Lease lease = client().lock("extend:watchdog", LockOptions.watchdog(Duration.ofMillis(300))).acquire(WAIT);
        lease.extend(Duration.ofSeconds(20));
        Thread.sleep(500); // a few renewals at ttl/3
        assertThat(pttl("extend:watchdog")).as("renewals did not shorten it").isGreaterThan(19_000L);
        assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(19));
        lease.release();
        assertThat(server.get().command("EXISTS", "extend:watchdog")).isEqualTo(0L);
    }

    @Test
    void aSemaphorePermitIsExtendedToo() throws Exception {
        DistributedSemaphore semaphore = client().semaphore("extend:permits", 2,
                LockOptions.fixedLease(Duration.ofMillis(300)));
        Lease permit = semaphore.acquire(WAIT);
        permit.extend(Duration.ofSeconds(5));
        Thread.sleep(500);
        assertThat(permit.isValid()).isTrue();
        assertThat(semaphore.available()).as("the permit is still held on the server").isEqualTo(1);
        permit.release();
        assertThat(semaphore.available()).isEqualTo(2);
    }

    @Test
    void extendingALeaseLostToItsDeadlineChangesNothingAndSaysSo() throws Exception {
        RedisLockClient client = client();
        Lease lease = client.lock("extend:late", LockOptions.fixedLease(Duration.ofMillis(200))).acquire(WAIT);
        Thread.sleep(300);
        Lease next = client().lock("extend:late", LockOptions.fixedLease(Duration.ofSeconds(2))).acquire(WAIT);
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(30))).isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("deadline");
        assertThat(pttl("extend:late")).as("the next holder's key is untouched").isLessThanOrEqualTo(2_000L);
        assertThat(lease.isValid()).isFalse();
        next.release();
    }

    @Test
    void anExtensionThatFindsAnotherHolderMarksTheLeaseLostAndSparesTheKey() throws Exception {
        Lease lease = client().lock("extend:stolen", LockOptions.fixedLease(Duration.ofSeconds(10))).acquire(WAIT);
        server.get().command("SET", "extend:stolen", "someone-else", "PX", "3000");
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(30))).isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("another holder");
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.lost().toCompletableFuture().get(1, TimeUnit.SECONDS).getMessage()).contains("extension");
        assertThat(server.get().command("GET", "extend:stolen")).isEqualTo("someone-else");
        assertThat(pttl("extend:stolen")).isLessThanOrEqualTo(3_000L);
        server.get().command("DEL", "extend:stolen");
    }

    @Test
    void aReleasedLeaseIsNeverExtended() {
        Lease lease = client().lock("extend:released").acquire(WAIT);
        lease.release();
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(30))).isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("released");
        assertThat(server.get().command("EXISTS", "extend:released")).isEqualTo(0L);
    }

    @Test
    void anExtensionRacingTheReleaseNeverRevivesTheKey() throws Exception {
        RedisLockClient client = client();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < 100; i++) {
                Lease lease = client.lock("extend:race", LockOptions.fixedLease(Duration.ofSeconds(5))).acquire(WAIT);
                CountDownLatch start = new CountDownLatch(1);
                Future<?> extend = pool.submit(() -> {
                    start.await();
                    try {
                        lease.extend(Duration.ofSeconds(60));
                    } catch (LeaseLostException released) {
                        // lost the race: fine, as long as nothing is revived
                    }
                    return null;
                });
                Future<ReleaseStatus> release = pool.submit(() -> {
                    start.await();
                    return lease.release();
                });
                start.countDown();
                extend.get(5, TimeUnit.SECONDS);
                assertThat(release.get(5, TimeUnit.SECONDS)).isEqualTo(ReleaseStatus.RELEASED);
                assertThat(server.get().command("EXISTS", "extend:race")).as("round %d", i).isEqualTo(0L);
                assertThat(lease.isValid()).isFalse();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void badTtlsAreRefusedAndChangeNothing() {
        Lease lease = client().lock("extend:bad", LockOptions.fixedLease(Duration.ofSeconds(10))).acquire(WAIT);
        for (Duration bad : new Duration[] {null, Duration.ofSeconds(-1), Duration.ZERO, Duration.ofMillis(9),
                LockOptions.MAX_TTL.plusMillis(1)}) {
            assertThatThrownBy(() -> lease.extend(bad)).as("%s", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ttl");
        }
        assertThat(pttl("extend:bad")).isLessThanOrEqualTo(10_000L);
        assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(10));
        lease.release();
    }

    @Test
    void anUnreachableServerLeavesTheDeadlineWhereItWas() {
        Lease lease = client(Duration.ofMillis(200)).lock("extend:frozen", LockOptions.fixedLease(Duration.ofSeconds(3)))
                .acquire(WAIT);
        server.get().pause();
        try {
            assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(60))).isInstanceOf(LockUnavailableException.class);
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(3));
            assertThat(lease.isValid()).isTrue();
        } finally {
            server.get().resume();
        }
        lease.release();
    }
}
