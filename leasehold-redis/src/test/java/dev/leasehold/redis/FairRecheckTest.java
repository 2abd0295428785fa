package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The fair lock's waiters of one client re-check together (fair_acquire.lua's covered waiters, the
 * engine's re-check groups): one attempt per re-check period keeps every registration of the
 * client alive, and a waiter that must act itself (handed the lock while its notification was
 * lost, or no longer registered) is woken by that attempt's reply.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class FairRecheckTest {

    private static final Duration RECHECK = Duration.ofMillis(200);

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private final List<RedisLockClient> clients = new ArrayList<>();
    private final List<CompletableFuture<Lease>> waiting = new ArrayList<>();

    @AfterEach
    void closeClients() {
        waiting.forEach(future -> future.cancel(false));
        clients.forEach(RedisLockClient::close);
        clients.clear();
    }

    private RedisLockClient client() {
        return client(RECHECK);
    }

    private RedisLockClient client(Duration maxRecheck) {
        RedisLockClient client = RedisLocks.builder().uri(server.get().uri()).maxRecheck(maxRecheck).connect();
        clients.add(client);
        return client;
    }

    /** {@code count} waiters of one new client on {@code name}, all registered and listening. */
    private RedisLockClient waiters(String name, int count) throws InterruptedException {
        RedisLockClient client = client();
        for (int i = 0; i < count; i++) {
            waiting.add(client.fairLock(name).acquireAsync(Duration.ofSeconds(60)).toCompletableFuture());
            // One at a time, so the server's arrival order is the local one.
            ServerProbe.awaitWaiters(server.get(), LockKeys.of(name).queue(), i + 1);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ServerProbe.subscribers(server.get(), LockKeys.of(name).channel()) == 0) {
            assertThat(System.nanoTime()).as("the waiters' subscription").isLessThan(deadline);
            Thread.sleep(10);
        }
        return client;
    }

    /** Waiter id to the stamp its registration carries. */
    private static Map<String, String> stamps(String name) {
        Map<?, ?> info = toMap((List<?>) server.get().command("HGETALL", LockKeys.of(name).queueInfo()));
        return info.entrySet().stream().collect(Collectors.toMap(e -> (String) e.getKey(),
                e -> ((String) e.getValue()).split(" ")[2]));
    }

    private static Map<Object, Object> toMap(List<?> flat) {
        Map<Object, Object> map = new java.util.HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put(flat.get(i), flat.get(i + 1));
        }
        return map;
    }

    private static long scriptCalls() {
        return ServerProbe.calls(server.get(), "evalsha") + ServerProbe.calls(server.get(), "eval");
    }

    @Test
    void thirtyWaitersOfOneClientKeepTheirPlacesWithOneAttemptPerPeriod() throws Exception {
        String name = "fair:herd";
        Lease held = client().fairLock(name).acquire(Duration.ZERO);
        waiters(name, 30);
        // Past the registration (3 re-check periods and the 3 s operation timeout): only renewed ones are left.
        Thread.sleep(4_000);
        long before = scriptCalls();

        Thread.sleep(1_000);

        // One re-check every 100-200 ms: 5-10 attempts (and the holder's renewals none: ttl 30 s).
        // Each waiter on its own timer would make 150-300.
        assertThat(scriptCalls() - before).isLessThan(40L);
        assertThat(server.get().command("ZCARD", LockKeys.of(name).queue())).isEqualTo(30L);
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
        // One attempt wrote every registration: they carry its stamp.
        List<String> stamps = List.copyOf(stamps(name).values());
        assertThat(stamps).as("stamps of the registrations").hasSize(30).containsOnly(stamps.get(0));
        held.release();
        for (CompletableFuture<Lease> each : waiting) {
            each.get(30, TimeUnit.SECONDS).release();
        }
    }

    @Test
    void aWaiterThatJoinedAsTheHolderWasAboutToExpireDoesNotKeepItsGroupReCheckingThatOften() throws Exception {
        String name = "fair:stale";
        LockKeys keys = LockKeys.of(name);
        // Another program holds the key (SET NX PX, as redis-py's Lock), and another client's
        // waiter is first in line for a minute: when the key goes, nobody here may take the lock.
        server.get().command("SET", name, "another program", "PX", "60000");
        long now = Long.parseLong((String) ((List<?>) server.get().command("TIME")).get(0)) * 1000;
        server.get().command("ZADD", keys.queue(), "1", "otherClientPrefix:1");
        server.get().command("HSET", keys.queueInfo(), "otherClientPrefix:1", (now + 60_000) + " 30000 0");
        RedisLockClient client = client(Duration.ofSeconds(5));
        waiting.add(client.fairLock(name).acquireAsync(Duration.ofSeconds(60)).toCompletableFuture());
        ServerProbe.awaitWaiters(server.get(), keys.queue(), 2);
        // The second waiter's attempt finds the key 300 ms from its end: it asks to re-check then.
        server.get().command("PEXPIRE", name, "300");
        waiting.add(client.fairLock(name).acquireAsync(Duration.ofSeconds(60)).toCompletableFuture());
        ServerProbe.awaitWaiters(server.get(), keys.queue(), 3);
        Thread.sleep(1_000);
        assertThat(server.get().command("EXISTS", name)).as("the key is gone").isEqualTo(0L);
        long before = scriptCalls();

        Thread.sleep(3_000);

        // Re-checks every 2.5-5 s (maxRecheck 5 s): at most 2 attempts. At the 300 ms the second
        // waiter asked for once, 10.
        assertThat(scriptCalls() - before).as("attempts in 3 s").isLessThanOrEqualTo(3L);
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
    }

    @Test
    void coveredWaitersLearnThatTheServerIsUnreachableWhenTheAttemptCoveringThemFails() throws Exception {
        String name = "fair:frozen";
        Lease held = client().fairLock(name).acquire(Duration.ZERO);
        RedisLockClient client = RedisLocks.builder().uri(server.get().uri()).maxRecheck(Duration.ofSeconds(1))
                .operationTimeout(Duration.ofSeconds(1)).connect();
        clients.add(client);
        for (int i = 0; i < 20; i++) {
            waiting.add(client.fairLock(name).acquireAsync(Duration.ofSeconds(60)).toCompletableFuture());
        }
        ServerProbe.awaitWaiters(server.get(), LockKeys.of(name).queue(), 20);
        Thread.sleep(1_000);
        long frozen = System.nanoTime();
        server.get().pause();
        try {
            // Each waiter's own attempt within a re-check period (0.5-1 s) fails after the 1 s
            // operation timeout. A covered waiter that waited for its own turn in the group would
            // learn it one period after the one before it: about 15 s for the twentieth.
            for (CompletableFuture<Lease> each : waiting) {
                assertThat(each).failsWithin(30, TimeUnit.SECONDS).withThrowableThat()
                        .withCauseInstanceOf(LockUnavailableException.class);
            }
            assertThat((System.nanoTime() - frozen) / 1_000_000).as("ms until the last waiter was told")
                    .isLessThan(8_000L);
        } finally {
            server.get().resume();
        }
        held.release();
    }

    @Test
    void aCoveredWaiterHandedTheLockBelievesInItNoLongerThanTheServerKeepsTheKey() throws Exception {
        String name = "fair:deadline";
        LockKeys keys = LockKeys.of(name);
        Lease held = client().fairLock(name).acquire(Duration.ZERO);
        RedisLockClient client = client(Duration.ofSeconds(1));
        LockOptions twoSeconds = LockOptions.fixedLease(Duration.ofSeconds(2));
        waiting.add(client.fairLock(name, twoSeconds).acquireAsync(Duration.ofSeconds(30)).toCompletableFuture());
        ServerProbe.awaitWaiters(server.get(), keys.queue(), 1);
        waiting.add(client.fairLock(name, twoSeconds).acquireAsync(Duration.ofSeconds(30)).toCompletableFuture());
        ServerProbe.awaitWaiters(server.get(), keys.queue(), 2);
        // Until the first arrival's attempt covered the second: their registrations carry one stamp.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (new HashSet<>(stamps(name).values()).size() != 1) {
            assertThat(System.nanoTime()).as("a covering attempt").isLessThan(deadline);
            Thread.sleep(20);
        }
        String second = (String) ((List<?>) server.get().command("ZRANGE", keys.queue(), "1", "1")).get(0);
        server.get().command("ZADD", keys.queue(), "1", second);

        held.release();
        Lease taken = waiting.get(1).get(10, TimeUnit.SECONDS);
        long before = System.nanoTime();
        long remaining = taken.remaining().toNanos();
        long pttl = (Long) server.get().command("PTTL", name);
        long between = (System.nanoTime() - before) / 1_000_000;

        // Taken from the release's message: the registration, kept while the handed-over key lives,
        // still carries the handoff's token and the stamp the message echoed.
        String[] entry = ((String) server.get().command("HGET", keys.queueInfo(), second)).split(" ");
        assertThat(entry).as("the handed-over registration").hasSize(4);
        long echoed = Long.parseLong(entry[2]);
        // The lease counts from that stamp (a covering attempt's send, before the handoff set the
        // key), so its local deadline comes before the key's expiry.
        assertThat(before + remaining).as("the local deadline")
                .isCloseTo(echoed + Duration.ofMillis(2_000 - 22).toNanos(), within(1_000_000L));
        assertThat(remaining / 1_000_000).as("ms the lease still believes in").isLessThanOrEqualTo(pttl + between + 1);
        assertThat(server.get().command("GET", name)).isEqualTo(second);
        taken.release();
        waiting.get(0).get(10, TimeUnit.SECONDS).release();
    }

    @Test
    void aCoveredWaiterThatTimesOutLeavesTheQueueForGoodAndClosingTheClientEmptiesIt() throws Exception {
        String name = "fair:leaving";
        LockKeys keys = LockKeys.of(name);
        Lease held = client().fairLock(name).acquire(Duration.ZERO);
        RedisLockClient client = waiters(name, 2);
        CompletableFuture<Lease> impatient = client.fairLock(name).acquireAsync(Duration.ofSeconds(1))
                .toCompletableFuture();
        ServerProbe.awaitWaiters(server.get(), keys.queue(), 3);
        String third = (String) ((List<?>) server.get().command("ZRANGE", keys.queue(), "2", "2")).get(0);

        assertThat(impatient).failsWithin(10, TimeUnit.SECONDS).withThrowableThat()
                .withCauseInstanceOf(LockTimeoutException.class);
        // Its abandon went out, and the attempts that covered it before do not bring it back.
        Thread.sleep(4 * RECHECK.toMillis());
        assertThat(server.get().command("ZSCORE", keys.queue(), third)).isNull();
        assertThat(server.get().command("ZCARD", keys.queue())).isEqualTo(2L);

        client.close();
        assertThat(server.get().command("ZCARD", keys.queue())).as("registrations left by the closed client")
                .isEqualTo(0L);
        held.release();
        assertThat(server.get().command("EXISTS", name)).as("handed to nobody").isEqualTo(0L);
    }

    @Test
    void aCoveredWaiterHandedTheLockWhileItsNotificationWasLostGetsItWithinAFewPeriods() throws Exception {
        String name = "fair:lost";
        LockKeys keys = LockKeys.of(name);
        Lease held = client().fairLock(name).acquire(Duration.ZERO);
        waiters(name, 2);
        List<?> queue = (List<?>) server.get().command("ZRANGE", keys.queue(), "0", "-1");
        String first = (String) queue.get(0);
        String second = (String) queue.get(1);
        // The second arrival (covered by the first's attempts) goes to the head of the line, and
        // the release that hands it the lock publishes where nobody listens: its notification is lost.
        server.get().command("ZADD", keys.queue(), "1", second);
        RedisClient lettuce = RedisClient.create(server.get().uri());
        try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
            long released = System.nanoTime();
            Long ended = new RedisScripts().fairRelease.<Long>run(connection.async(), ScriptOutputType.INTEGER,
                    KindScripts.fairKeys(keys), (String) server.get().command("GET", name), "60000", "nowhere").join();
            assertThat(ended).isEqualTo(1L);
            assertThat(server.get().command("GET", name)).as("handed to the covered waiter").isEqualTo(second);

            Lease taken = waiting.get(1).get(10, TimeUnit.SECONDS);

            assertThat((System.nanoTime() - released) / 1_000_000).as("ms until the handoff was taken")
                    .isLessThan(3_000L);
            assertThat(taken.token()).isGreaterThan(held.token());
            assertThat(waiting.get(0)).isNotDone();
            taken.release();
            assertThat(server.get().command("GET", name)).as("handed on to the first arrival").isEqualTo(first);
            waiting.get(0).get(10, TimeUnit.SECONDS).release();
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void aCoveredWaiterWhoseRegistrationVanishedRegistersAgain() throws Exception {
        String name = "fair:vanished";
        Lease held = client().fairLock(name).acquire(Duration.ZERO);
        waiters(name, 3);
        String last = (String) ((List<?>) server.get().command("ZRANGE", LockKeys.of(name).queue(), "-1", "-1")).get(0);
        server.get().command("ZREM", LockKeys.of(name).queue(), last);
        server.get().command("HDEL", LockKeys.of(name).queueInfo(), last);

        ServerProbe.awaitWaiters(server.get(), LockKeys.of(name).queue(), 3);

        assertThat(server.get().command("ZSCORE", LockKeys.of(name).queue(), last)).isNotNull();
        held.release();
        for (CompletableFuture<Lease> each : waiting) {
            each.get(30, TimeUnit.SECONDS).release();
        }
    }
}
