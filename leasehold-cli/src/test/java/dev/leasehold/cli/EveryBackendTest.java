package dev.leasehold.cli;

import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.launcher.RedisServer;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands on every backend of the command line, one scenario each, the same expected output
 * whatever the backend: {@code inspect}, {@code list} and {@code break} for the kinds that share a
 * lock, readers and a semaphore's permits (issue 20); and the line {@code run} prints while it
 * waits (issue 22), on the backends whose queues register every waiter, this run's own acquisition
 * included: it names the holder and counts only the other waiters, and a free lock or
 * {@code --wait 0} shows no waiting line at all.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class EveryBackendTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    /** Renewed every second, so a broken holder learns it within seconds. */
    private static final LockOptions SHORT = LockOptions.watchdog(Duration.ofSeconds(3));

    private static RedisServer redis;
    private static TestingServer zookeeper;
    private static EtcdCluster etcd;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServers() throws Exception {
        redis = RedisServer.builder().start();
        zookeeper = new TestingServer(true);
        etcd = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopServers() throws IOException {
        etcd.close();
        zookeeper.close();
        redis.close();
    }

    static Stream<CliBackend> backends() {
        return Stream.of(CliBackend.redis(redis), CliBackend.zookeeper(zookeeper), CliBackend.etcd(etcd));
    }

    /** The backends whose queue registers a waiter from its first attempt on. */
    static Stream<CliBackend> queueBackends() {
        return Stream.of(CliBackend.zookeeper(zookeeper), CliBackend.etcd(etcd));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void readersAreShownListedAndBrokenTogether(CliBackend backend) throws Exception {
        String name = "kinds-read-" + backend.name();
        try (LockClient client = backend.client().get()) {
            DistributedReadWriteLock lock = client.readWriteLock(name, SHORT);
            Lease first = lock.readLock().acquire(Duration.ofSeconds(5));
            Lease second = lock.readLock().acquire(Duration.ofSeconds(5));

            CliProcess text = cli(backend.args("inspect", name));
            assertThat(text.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", text.stderr()).isZero();
            assertThat(text.stdout()).contains("kind     read, 2 readers").containsPattern("holders  \\S+, \\S+");

            CliProcess json = cli(backend.args("inspect", name, "--json"));
            assertThat(json.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(json.stdout()).contains("\"held\":true").contains("\"kind\":\"read\",\"permits\":null")
                    .containsPattern("\"holders\":\\[\"[^\"]+\",\"[^\"]+\"]");

            CliProcess list = cli(backend.args("list", "kinds-read-*"));
            assertThat(list.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", list.stderr()).isZero();
            assertThat(list.stdout()).startsWith("NAME").containsPattern(name + "\\s+read\\s+2\\s");

            CliProcess broke = cli(backend.args("break", name, "--reason", "readers stuck", "--yes"));
            assertThat(broke.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", broke.stderr()).isZero();
            assertThat(broke.stdout()).contains("broke '" + name + "'").contains("fence now");
            first.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
            second.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);

            CliProcess free = cli(backend.args("inspect", name, "--json"));
            assertThat(free.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(free.stdout()).contains("\"held\":false").contains("\"kind\":null");
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aSemaphoresPermitsAreShownWithTheirNumber(CliBackend backend) throws Exception {
        String name = "kinds-permits-" + backend.name();
        try (LockClient client = backend.client().get()) {
            DistributedSemaphore semaphore = client.semaphore(name, 3, SHORT);
            try (Lease first = semaphore.acquire(Duration.ofSeconds(5));
                 Lease second = semaphore.acquire(Duration.ofSeconds(5))) {
                CliProcess text = cli(backend.args("inspect", name));
                assertThat(text.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", text.stderr()).isZero();
                assertThat(text.stdout()).contains("kind     semaphore, 2 of 3 permits held");

                CliProcess json = cli(backend.args("inspect", name, "--json"));
                assertThat(json.awaitExit(EXIT_TIMEOUT)).isZero();
                assertThat(json.stdout()).contains("\"kind\":\"semaphore\",\"permits\":3")
                        .containsPattern("\"holders\":\\[\"[^\"]+\",\"[^\"]+\"]");

                CliProcess list = cli(backend.args("list", "kinds-permits-*", "--json"));
                assertThat(list.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", list.stderr()).isZero();
                assertThat(list.stdout()).contains("{\"name\":\"" + name + "\",\"held\":true")
                        .contains("\"kind\":\"semaphore\",\"permits\":3");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("queueBackends")
    void theWaitingLineNamesTheHolderAndCountsOnlyTheOtherWaiters(CliBackend backend) throws Exception {
        String name = "nightly-" + backend.name();
        try (LockClient holding = backend.client().get(); LockClient waiting = backend.client().get();
             Lease held = holding.lock(name).acquire(Duration.ofSeconds(5))) {
            CliProcess alone = cli(backend.args("run", name, "--wait", "2s", "--", "true"));
            assertThat(alone.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.NOT_OBTAINED);
            assertThat(alone.stderr()).contains("waiting for lock '" + name + "': held by ")
                    .contains("not obtained within 2s: held by ")
                    .doesNotContain("1 waiting").doesNotContain("other waiting").doesNotContain("free now")
                    .doesNotContain("giving up in 0ms");

            CompletableFuture<Lease> other = waiting.lock(name).acquireAsync(Duration.ofSeconds(60));
            // Its first look may come before its own registration: a later one is printed as news.
            CliProcess behindAnother = cli(backend.args("run", name, "--wait", "4s", "--", "true"));
            assertThat(behindAnother.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.NOT_OBTAINED);
            assertThat(behindAnother.stderr()).contains("waiting for lock '" + name + "': held by ")
                    .contains(", 1 other waiting; giving up in ");
            other.cancel(true);
        }
    }

    @ParameterizedTest
    @MethodSource("queueBackends")
    void aFreeLockOrAZeroWaitShowsNoWaitingLine(CliBackend backend) {
        String name = "free-" + backend.name();
        for (String wait : List.of("0", "5s")) {
            CliProcess free = cli(backend.args("run", name, "--wait", wait, "--", "true"));
            assertThat(free.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", free.stderr()).isZero();
            assertThat(free.stderr()).contains("acquired lock '" + name + "'").doesNotContain("waiting for lock");
        }
    }

    private CliProcess cli(String... args) {
        return CliProcess.start(dir, Map.of(), args);
    }
}
