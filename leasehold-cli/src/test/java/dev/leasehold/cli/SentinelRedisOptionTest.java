package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --redis redis-sentinel://...#master} on a real master, replica and three Sentinels with a
 * password: {@code inspect} and {@code run} reach the master the Sentinels name, and the password
 * shows nowhere; a Sentinel URI without a master name is a usage error.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SentinelRedisOptionTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final String PASSWORD = "sentinel-cli-secret";

    @RegisterExtension
    static final TestServer<RedisSentinelGroup> group = TestServer.perClass(() -> RedisSentinelGroup.start(1, PASSWORD));

    @TempDir
    Path dir;

    @AfterAll
    static void stopGroup() {
        if (group.get() != null) {
            }
    }

    @Test
    void inspectAndRunReachTheMasterTheSentinelsName() {
        long heldToken;
        try (RedisLockClient client = RedisLocks.connect(group.get().uri());
             Lease lease = client.lock("order:9", LockOptions.watchdog(Duration.ofSeconds(20))).acquire(Duration.ZERO)) {
            heldToken = lease.token();
            CliProcess inspect = cli("inspect", "order:9", "--json", "--redis", group.get().uri());
            assertThat(inspect.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", inspect.stderr()).isZero();
            assertThat(inspect.stdout()).contains("\"held\":true").contains("\"fence\":" + heldToken);
            assertThat(inspect.stdout() + inspect.stderr()).doesNotContain(PASSWORD);
        }

        CliProcess run = cliWithEnv("run", "order:9", "--wait", "5s", "--", "sh", "-c", "exit 3");
        assertThat(run.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", run.stderr()).isEqualTo(3);
        assertThat(run.stdout() + run.stderr()).doesNotContain(PASSWORD);
        try (RedisLockClient client = RedisLocks.connect(group.get().uri())) {
            assertThat(client.inspect("order:9").holder()).as("run released the lock").isEmpty();
            assertThat(client.inspect("order:9").lastToken().orElseThrow()).as("run's grant advanced the master's fence")
                    .isGreaterThan(heldToken);
        }
    }

    @Test
    void aSentinelUriWithoutAMasterNameIsAUsageError() {
        String uri = group.get().uri();
        CliProcess inspect = cli("inspect", "order:9", "--redis", uri.substring(0, uri.indexOf('#')));

        assertThat(inspect.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(inspect.stderr()).contains("--redis").containsIgnoringCase("master").doesNotContain(PASSWORD);
    }

    private CliProcess cli(String... args) {
        return CliProcess.start(dir, Map.of(), args);
    }

    /** With the Sentinel URI in {@value RedisOption#ENV_VAR}, as a deployment would set it. */
    private CliProcess cliWithEnv(String... args) {
        return CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, group.get().uri()), args);
    }
}
