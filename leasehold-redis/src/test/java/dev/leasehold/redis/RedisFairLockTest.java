package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.launcher.Signals;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Redis-specific behaviour of the fair lock, read off a real server. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisFairLockTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(RedisLockClient::close);
        clients.clear();
    }

    private RedisLockClient client() {
        return client(RedisLocks.builder().uri(server.get().uri()));
    }

    private RedisLockClient client(RedisLocks.Builder builder) {
        RedisLockClient client = builder.connect();
        clients.add(client);
        return client;
    }

    /** Waits up to 10 s until the fair queue of {@code name} holds {@code count} waiters. */
    private static void awaitQueue(String name, long count) throws InterruptedException {
        ServerProbe.awaitWaiters(server.get(), LockKeys.of(name).queue(), count);
    }

    @Test
    void grantsFollowTheServersArrivalOrderAcrossClientsAndThreads() throws Exception {
        String name = "fair:order";
        List<RedisLockClient> three = List.of(client(), client(), client());
        Lease first = client().fairLock(name).acquire(Duration.ofSeconds(5));
        List<Integer> granted = Collections.synchronizedList(new ArrayList<>());
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        int acquisitions = 12;
        ExecutorService threads = Executors.newFixedThreadPool(acquisitions);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < acquisitions; i++) {
                // Client i % 3, its thread i / 3: the clients interleave, each with 4 threads.
                DistributedLock lock = three.get(i % 3).fairLock(name);
                int arrival = i;
                done.add(threads.submit(() -> {
                    try (Lease lease = lock.acquire(Duration.ofSeconds(60))) {
                        granted.add(arrival);
                        tokens.add(lease.token());
                    }
                    return null;
                }));
                // The next acquire starts only once this one is registered: the order is known.
                awaitQueue(name, i + 1);
            }
            first.release();
            for (Future<?> each : done) {
                each.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(granted).as("grant order").containsExactlyElementsOf(IntStream.range(0, acquisitions).boxed().toList());
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).isGreaterThan(tokens.get(i - 1));
        }
        assertThat(server.get().command("EXISTS", LockKeys.of(name).queue(), LockKeys.of(name).queueInfo()))
                .as("the queue is gone with its last waiter").isEqualTo(0L);
    }

    @Test
    void aHandoffBetweenClientsCostsTheReleaseAndNoAcquire() throws Exception {
        String name = "fair:handoff";
        // No re-check timer and no renewal can fire within the test: every script call is counted.
        RedisLockClient holderClient = client(RedisLocks.builder().uri(server.get().uri()).maxRecheck(Duration.ofMinutes(1)));
        RedisLockClient waiterClient = client(RedisLocks.builder().uri(server.get().uri()).maxRecheck(Duration.ofMinutes(1)));
        LockOptions fixed = LockOptions.fixedLease(Duration.ofSeconds(60));
        // Load both scripts into the server's cache first: a NOSCRIPT fallback would count twice.
        holderClient.fairLock(name, fixed).acquire(Duration.ofSeconds(5)).release();
        Lease held = holderClient.fairLock(name, fixed).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiting = waiterClient.fairLock(name, fixed).acquireAsync(Duration.ofSeconds(30));
        awaitQueue(name, 1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (waiterClient.activeSubscriptions() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        // Let the attempt that follows the subscription land too.
        Thread.sleep(300);
        assertThat(waiting).isNotDone();
        long scriptCalls = scriptCalls();

        held.release();
        Lease taken = waiting.get(5, TimeUnit.SECONDS);

        assertThat(scriptCalls() - scriptCalls).as("script calls from the release to the waiter's lease: the release alone")
                .isEqualTo(1L);
        assertThat(taken.token()).isGreaterThan(held.token());
        assertThat(server.get().command("GET", LockKeys.of(name).fence())).isEqualTo(Long.toString(taken.token()));
        assertThat(taken.isValid()).isTrue();
        taken.release();
        assertThat(server.get().command("EXISTS", name)).isEqualTo(0L);
    }

    private static long scriptCalls() {
        return ServerProbe.calls(server.get(), "evalsha") + ServerProbe.calls(server.get(), "eval");
    }

    @Test
    void aWaiterWhoseProcessWasKilledIsSkippedOnceItsRegistrationExpires() throws Exception {
        String name = "fair:killed";
        Lease held = client().fairLock(name).acquire(Duration.ofSeconds(5));
        long maxRecheckMillis = 200;
        long operationTimeoutMillis = 1_000;
        // As RedisLockClient computes it: three re-check intervals plus the operation timeout.
        long registrationMillis = 3 * maxRecheckMillis + operationTimeoutMillis;
        Process child = startWaiter(name, maxRecheckMillis, operationTimeoutMillis);
        try {
            awaitQueue(name, 1);
            CompletableFuture<Lease> behind = client().fairLock(name).acquireAsync(Duration.ofSeconds(60));
            awaitQueue(name, 2);
            Signals.kill(child.pid());
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
            long killed = System.nanoTime();
            assertThat(behind).as("the dead waiter still holds its place").isNotDone();

            Thread.sleep(registrationMillis + 300);
            long released = System.nanoTime();
            held.release();
            // Handed to the dead child, it would wait for the child's 30 s ttl.
            Lease taken = behind.get(5, TimeUnit.SECONDS);
            long afterRelease = (System.nanoTime() - released) / 1_000_000;
            assertThat(afterRelease).as("ms from the release to the next live waiter's lease").isLessThan(2_000L);
            assertThat((System.nanoTime() - killed) / 1_000_000).isGreaterThanOrEqualTo(registrationMillis);
            assertThat(taken.token()).isGreaterThan(held.token());
            assertThat(server.get().command("ZCARD", LockKeys.of(name).queue()))
                    .as("the dead waiter is gone; the taker keeps its handoff entry until it releases").isEqualTo(1L);
            taken.release();
            assertThat(server.get().command("EXISTS", LockKeys.of(name).queue(), LockKeys.of(name).queueInfo())).isEqualTo(0L);
        } finally {
            child.destroyForcibly();
        }
    }

    /** {@link FairWaiterMain} in a JVM of its own, on this test's class path. */
    private static Process startWaiter(String name, long maxRecheckMillis, long operationTimeoutMillis) throws IOException {
        Path log = Files.createTempFile("fair-waiter-", ".log");
        log.toFile().deleteOnExit();
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), FairWaiterMain.class.getName(),
                server.get().uri(), name, Long.toString(maxRecheckMillis), Long.toString(operationTimeoutMillis));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        process.getOutputStream().close();
        return process;
    }
}
