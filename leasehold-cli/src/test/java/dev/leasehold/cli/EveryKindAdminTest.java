package dev.leasehold.cli;

import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.zookeeper.ZooKeeperLocks;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code inspect}, {@code list} and {@code break} on every backend of the command line (issue 20),
 * for the kinds that share a lock: readers and a semaphore's permits. The same scenario, the same
 * expected output, whatever the backend.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EveryKindAdminTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    /** Renewed every second, so a broken holder learns it within seconds. */
    private static final LockOptions SHORT = LockOptions.watchdog(Duration.ofSeconds(3));

    private static RedisServer redis;
    private static TestingServer zookeeper;
    private static EtcdCluster etcd;

    @TempDir
    Path dir;

    /** A backend as the command line names it, and a library client on the same servers. */
    record Backend(String name, List<String> options, Supplier<LockClient> client) {
        @Override
        public String toString() {
            return name;
        }
    }

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

    static Stream<Backend> backends() {
        return Stream.of(
                new Backend("redis", List.of("--redis", redis.uri()), () -> RedisLocks.connect(redis.uri())),
                new Backend("zookeeper", List.of("--backend", "zookeeper", "--endpoints", zookeeper.getConnectString()),
                        () -> ZooKeeperLocks.connect(zookeeper.getConnectString())),
                new Backend("etcd", List.of("--backend", "etcd", "--endpoints", etcd.endpoints()),
                        () -> EtcdLocks.connect(etcd.endpoints())));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void readersAreShownListedAndBrokenTogether(Backend backend) throws Exception {
        String name = "kinds-read-" + backend.name();
        try (LockClient client = backend.client().get()) {
            DistributedReadWriteLock lock = client.readWriteLock(name, SHORT);
            Lease first = lock.readLock().acquire(Duration.ofSeconds(5));
            Lease second = lock.readLock().acquire(Duration.ofSeconds(5));

            CliProcess text = cli(backend, "inspect", name);
            assertThat(text.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", text.stderr()).isZero();
            assertThat(text.stdout()).contains("kind     read, 2 readers").containsPattern("holders  \\S+, \\S+");

            CliProcess json = cli(backend, "inspect", name, "--json");
            assertThat(json.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(json.stdout()).contains("\"held\":true").contains("\"kind\":\"read\",\"permits\":null")
                    .containsPattern("\"holders\":\\[\"[^\"]+\",\"[^\"]+\"]");

            CliProcess list = cli(backend, "list", "kinds-read-*");
            assertThat(list.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", list.stderr()).isZero();
            assertThat(list.stdout()).startsWith("NAME").containsPattern(name + "\\s+read\\s+2\\s");

            CliProcess broke = cli(backend, "break", name, "--reason", "readers stuck", "--yes");
            assertThat(broke.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", broke.stderr()).isZero();
            assertThat(broke.stdout()).contains("broke '" + name + "'").contains("fence now");
            first.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
            second.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);

            CliProcess free = cli(backend, "inspect", name, "--json");
            assertThat(free.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(free.stdout()).contains("\"held\":false").contains("\"kind\":null");
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aSemaphoresPermitsAreShownWithTheirNumber(Backend backend) throws Exception {
        String name = "kinds-permits-" + backend.name();
        try (LockClient client = backend.client().get()) {
            DistributedSemaphore semaphore = client.semaphore(name, 3, SHORT);
            try (Lease first = semaphore.acquire(Duration.ofSeconds(5));
                 Lease second = semaphore.acquire(Duration.ofSeconds(5))) {
                CliProcess text = cli(backend, "inspect", name);
                assertThat(text.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", text.stderr()).isZero();
                assertThat(text.stdout()).contains("kind     semaphore, 2 of 3 permits held");

                CliProcess json = cli(backend, "inspect", name, "--json");
                assertThat(json.awaitExit(EXIT_TIMEOUT)).isZero();
                assertThat(json.stdout()).contains("\"kind\":\"semaphore\",\"permits\":3")
                        .containsPattern("\"holders\":\\[\"[^\"]+\",\"[^\"]+\"]");

                CliProcess list = cli(backend, "list", "kinds-permits-*", "--json");
                assertThat(list.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", list.stderr()).isZero();
                assertThat(list.stdout()).contains("{\"name\":\"" + name + "\",\"held\":true")
                        .contains("\"kind\":\"semaphore\",\"permits\":3");
            }
        }
    }

    private CliProcess cli(Backend backend, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(backend.options());
        return CliProcess.start(dir, Map.of(), all.toArray(String[]::new));
    }
}
