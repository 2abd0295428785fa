package dev.leasehold.redis;

import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The semaphore's guarantees, read off a real server under contention. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisSemaphoreTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private final List<RedisLockClient> clients = new ArrayList<>();

    /** One permit held by a worker: when its acquire was sent, when it returned, when the release began. */
    private record Hold(long token, long sentNanos, long acquiredNanos, long releasingNanos) {
    }

    @AfterEach
    void closeClients() {
        clients.forEach(RedisLockClient::close);
        clients.clear();
    }

    private RedisLockClient client() {
        RedisLockClient client = RedisLocks.connect(server.get().uri());
        clients.add(client);
        return client;
    }

    @Test
    void neverMoreThanThePermitsHoldAtOnceAndAvailableIsRightBetweenRounds() throws Exception {
        int permits = 3;
        String name = "sem:churn";
        List<DistributedSemaphore> semaphores = List.of(client().semaphore(name, permits), client().semaphore(name, permits));
        List<Hold> holds = Collections.synchronizedList(new ArrayList<>());
        ExecutorService workers = Executors.newFixedThreadPool(12);
        try {
            for (int round = 0; round < 4; round++) {
                List<Future<?>> running = new ArrayList<>();
                for (int worker = 0; worker < 12; worker++) {
                    DistributedSemaphore semaphore = semaphores.get(worker % 2);
                    running.add(workers.submit(() -> churn(semaphore, 15, holds)));
                }
                for (Future<?> one : running) {
                    one.get(60, TimeUnit.SECONDS);
                }
                // A quiescent point: exactly `kept` permits held, by both clients.
                int kept = round % (permits + 1);
                List<Lease> keptLeases = new ArrayList<>();
                for (int i = 0; i < kept; i++) {
                    keptLeases.add(semaphores.get(i % 2).acquire(Duration.ofSeconds(5)));
                }
                assertThat(semaphores.get(0).available()).as("round %d, %d held", round, kept).isEqualTo(permits - kept);
                assertThat(semaphores.get(1).available()).isEqualTo(permits - kept);
                keptLeases.forEach(Lease::release);
            }
        } finally {
            workers.shutdownNow();
        }
        assertThat(semaphores.get(0).available()).isEqualTo(permits);
        assertThat(holds).hasSize(4 * 12 * 15);
        assertThat(mostHeldAtOnce(holds)).as("never more than the permits, and contended up to them").isEqualTo(permits);
        assertTokensFollowGrantOrder(holds);
        assertThat(server.get().command("EXISTS", LockKeys.of(name).permits())).as("no lease left, no set left").isEqualTo(0L);
        assertThat(ServerProbe.keysWithoutTtl(server.get())).isEmpty();
    }

    private static void churn(DistributedSemaphore semaphore, int times, List<Hold> holds) {
        for (int i = 0; i < times; i++) {
            long sent = System.nanoTime();
            Lease lease = semaphore.acquire(Duration.ofSeconds(30));
            long acquired = System.nanoTime();
            try {
                Thread.sleep(ThreadLocalRandom.current().nextInt(1, 6));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            assertThat(lease.isValid()).isTrue();
            holds.add(new Hold(lease.token(), sent, acquired, System.nanoTime()));
            lease.release();
        }
    }

    /**
     * The most holds whose client-side intervals overlap. Each lies within the server-side lease
     * (granted before the acquire returned, removed after the release began), so this many were
     * held on the server at once too.
     */
    private static int mostHeldAtOnce(List<Hold> holds) {
        List<long[]> events = new ArrayList<>();
        for (Hold hold : holds) {
            events.add(new long[] {hold.acquiredNanos(), 1});
            events.add(new long[] {hold.releasingNanos(), -1});
        }
        // At equal times ends go first: touching intervals do not overlap.
        events.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        int current = 0;
        int most = 0;
        for (long[] event : events) {
            current += (int) event[1];
            most = Math.max(most, current);
        }
        return most;
    }

    /** A permit granted before another acquire was even sent has a lower token, and no token repeats. */
    private static void assertTokensFollowGrantOrder(List<Hold> holds) {
        assertThat(holds.stream().map(Hold::token).distinct().count()).isEqualTo(holds.size());
        List<Hold> bySend = new ArrayList<>(holds);
        bySend.sort(Comparator.comparingLong(Hold::sentNanos));
        for (Hold earlier : holds) {
            for (Hold later : bySend) {
                if (later.sentNanos() > earlier.acquiredNanos()) {
                    assertThat(later.token()).as("granted after %s", earlier).isGreaterThan(earlier.token());
                }
            }
        }
    }

    @Test
    void oneClientsThreadsHoldSeveralPermitsEachWithItsOwnToken() {
        DistributedSemaphore semaphore = client().semaphore("sem:one-client", 3, LockOptions.watchdog(Duration.ofMillis(1_500)));
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            leases.add(semaphore.acquire(Duration.ofSeconds(5)));
        }
        assertThat(leases.stream().map(Lease::token).distinct()).hasSize(3);
        assertThat(semaphore.available()).isZero();
        assertThat(semaphore.tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(client().semaphore("sem:one-client", 3).tryAcquire(Duration.ofMillis(3_500)))
                .as("renewed by the watchdog past two ttls").isEmpty();
        assertThat(leases).allMatch(Lease::isValid);
        leases.forEach(Lease::release);
        assertThat(semaphore.available()).isEqualTo(3);
    }

    @Test
    void aCrashedHoldersPermitComesBackWhenItsLeaseExpires() throws InterruptedException {
        Duration leaseTime = Duration.ofMillis(800);
        DistributedSemaphore crashed = client().semaphore("sem:crash", 2, LockOptions.fixedLease(leaseTime));
        long start = System.nanoTime();
        // Never released: the holder "dies" holding both permits.
        crashed.acquire(Duration.ofSeconds(5));
        crashed.acquire(Duration.ofSeconds(5));
        DistributedSemaphore survivor = client().semaphore("sem:crash", 2);
        assertThat(survivor.tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(survivor.available()).isZero();

        try (Lease next = survivor.acquire(Duration.ofSeconds(10))) {
            long waitedMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(waitedMillis).as("free when the lease expired, not before, and woken without a release")
                    .isBetween(leaseTime.toMillis() - 50, leaseTime.toMillis() + 1_500);
            // The second crashed permit was taken a little later and expires a little later.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (survivor.available() == 0 && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertThat(survivor.available()).isEqualTo(1);
        }
    }

    @Test
    void anotherNumberOfPermitsIsRefusedWhileAPermitIsHeldNamingBothNumbers() {
        RedisLockClient client = client();
        DistributedSemaphore three = client.semaphore("sem:mismatch", 3);
        DistributedSemaphore four = client().semaphore("sem:mismatch", 4);
        Lease held = three.acquire(Duration.ofSeconds(5));

        assertThatThrownBy(() -> client.semaphore("sem:mismatch", 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'sem:mismatch' is held with 3 permits").hasMessageContaining("asks for 4");
        assertThatThrownBy(() -> four.acquire(Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(PermitsMismatchException.class, e -> {
                    assertThat(e.heldWith()).isEqualTo(3);
                    assertThat(e.requested()).isEqualTo(4);
                    assertThat(e.semaphoreName()).isEqualTo("sem:mismatch");
                });
        assertThatThrownBy(() -> four.tryAcquire(Duration.ZERO)).as("an error, never an empty result")
                .isInstanceOf(PermitsMismatchException.class);
        assertThatThrownBy(four::available).isInstanceOf(PermitsMismatchException.class);
        assertThat(three.available()).isEqualTo(2);

        held.release();
        try (Lease first = four.acquire(Duration.ZERO)) {
            assertThat(first.token()).as("no permit held: the number may change").isGreaterThan(held.token());
            assertThat(four.available()).isEqualTo(3);
            assertThatThrownBy(() -> three.acquire(Duration.ZERO)).isInstanceOf(PermitsMismatchException.class);
        }
    }

    @Test
    void badInputIsRejectedNamingTheArgument() {
        RedisLockClient client = client();
        assertThatThrownBy(() -> client.semaphore("sem:bad", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits").hasMessageContaining("got 0");
        assertThatThrownBy(() -> client.semaphore("sem:bad", -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits");
        assertThatThrownBy(() -> client.semaphore("sem:bad", DistributedSemaphore.MAX_PERMITS + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits")
                .hasMessageContaining(Integer.toString(DistributedSemaphore.MAX_PERMITS));
        assertThatThrownBy(() -> client.semaphore(null, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock name");
        assertThatThrownBy(() -> client.semaphore("sem:bad", 2, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("options");
        assertThatThrownBy(() -> client.semaphore("{x}:permits", 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits key");

        DistributedSemaphore semaphore = client.semaphore("sem:bad", DistributedSemaphore.MAX_PERMITS);
        assertThat(semaphore.permits()).isEqualTo(DistributedSemaphore.MAX_PERMITS);
        assertThatThrownBy(() -> semaphore.acquire(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait");
    }

    @Test
    void aPermitsKeyOfAnotherTypeFailsAtOnceNamingTheKey() {
        server.get().command("SET", "{sem:foreign}:permits", "someone else's");
        assertThatThrownBy(() -> client().semaphore("sem:foreign", 2))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("{sem:foreign}:permits").hasMessageContaining("string");
        server.get().command("DEL", "{sem:foreign}:permits");
    }
}
