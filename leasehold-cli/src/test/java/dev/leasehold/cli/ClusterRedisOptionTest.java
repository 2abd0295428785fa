package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --redis redis-cluster://password@host:port,...} on a real three-master Cluster whose
 * nodes require a password: {@code inspect}, {@code list} and {@code run} reach the master of the
 * name's slot, and the password shows nowhere; a Cluster URI with a database is a usage error.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ClusterRedisOptionTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final String PASSWORD = "cluster-cli-secret";

    @RegisterExtension
    static final TestServer<RedisClusterGroup> cluster = TestServer.perClass(() -> RedisClusterGroup.start(3, 0));
    private static String uri;

    @TempDir
    Path dir;

    @BeforeAll
    static void startCluster() {
        uri = "redis-cluster://:" + PASSWORD + "@" + cluster.get().nodes().stream()
                .map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(","));
        for (RedisServer node : cluster.get().nodes()) {
            node.command("CONFIG", "SET", "requirepass", PASSWORD);
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster.get() != null) {
            }
    }

    @Test
    void inspectListAndRunReachTheMasterOfTheNamesSlot() {
        long heldToken;
        try (RedisLockClient client = RedisLocks.connect(uri);
             Lease lease = client.lock("order:9", LockOptions.watchdog(Duration.ofSeconds(20))).acquire(Duration.ZERO)) {
            heldToken = lease.token();
            CliProcess inspect = cli("inspect", "order:9", "--json", "--redis", uri);
            assertThat(inspect.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", inspect.stderr()).isZero();
            assertThat(inspect.stdout()).contains("\"held\":true").contains("\"fence\":" + heldToken);
            assertThat(inspect.stdout() + inspect.stderr()).doesNotContain(PASSWORD);

            CliProcess list = cliWithEnv("list");
            assertThat(list.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", list.stderr()).isZero();
            assertThat(list.stdout()).contains("order:9");
            assertThat(list.stdout() + list.stderr()).doesNotContain(PASSWORD);
        }

        CliProcess run = cliWithEnv("run", "order:9", "--wait", "5s", "--", "sh", "-c", "exit 3");
        assertThat(run.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", run.stderr()).isEqualTo(3);
        assertThat(run.stdout() + run.stderr()).doesNotContain(PASSWORD);
        try (RedisLockClient client = RedisLocks.connect(uri)) {
            assertThat(client.inspect("order:9").holder()).as("run released the lock").isEmpty();
            assertThat(client.inspect("order:9").lastToken().orElseThrow()).as("run's grant advanced the fence")
                    .isGreaterThan(heldToken);
        }
    }

    @Test
    void aClusterUriWithADatabaseIsAUsageError() {
        CliProcess inspect = cli("inspect", "order:9", "--redis", uri + "/2");

        assertThat(inspect.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(inspect.stderr()).contains("--redis").contains("database 0").doesNotContain(PASSWORD);
    }

    @Test
    void aWrongPasswordIsToldWithoutTheUri() {
        CliProcess inspect = cli("inspect", "order:9", "--redis", uri.replace(PASSWORD, "wrong-" + PASSWORD));

        assertThat(inspect.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(inspect.stderr()).isNotBlank().doesNotContain(PASSWORD);
    }

    private CliProcess cli(String... args) {
        return CliProcess.start(dir, Map.of(), args);
    }

    /** With the Cluster URI in {@value RedisOption#ENV_VAR}, as a deployment would set it. */
    private CliProcess cliWithEnv(String... args) {
        return CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, uri), args);
    }
}
