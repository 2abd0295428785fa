package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code leasehold list} and {@code leasehold break} against locks this test holds through the library. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AdminCommandsTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static RedisServer server;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServer() {
        server = RedisServer.builder().start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void listShowsTheHeldLocksMatchingThePatternRedacted() {
        try (RedisLockClient client = RedisLocks.connect(server.uri());
             Lease a = client.lock("report:a").acquire(Duration.ZERO);
             Lease b = client.lock("report:b").acquire(Duration.ZERO);
             Lease other = client.lock("invoice:1").acquire(Duration.ZERO)) {
            String holder = (String) server.command("GET", "report:a");

            CliProcess text = cli("list", "report:*");
            assertThat(text.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(text.stdout()).startsWith("NAME").contains("report:a").contains("report:b")
                    .contains(Long.toString(a.token())).doesNotContain("invoice:1").doesNotContain(holder);

            CliProcess json = cli("list", "--json");
            assertThat(json.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(json.stdout().trim()).startsWith("[{\"name\":\"invoice:1\",\"held\":true")
                    .contains("{\"name\":\"report:b\"").endsWith("}]").doesNotContain(holder);
        }
        CliProcess none = cli("list", "report:*");
        assertThat(none.awaitExit(EXIT_TIMEOUT)).isZero();
        assertThat(none.stdout()).contains("no lock held");
    }

    @Test
    void breakNeedsYesWithoutATerminalThenBreaksTheLockAndTheHolderLearnsIt() throws Exception {
        try (RedisLockClient client = RedisLocks.connect(server.uri())) {
            Lease lease = client.lock("stuck:job", LockOptions.watchdog(Duration.ofSeconds(3))).acquire(Duration.ZERO);

            CliProcess refused = cli("break", "stuck:job", "--reason", "cron host died");
            assertThat(refused.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
            assertThat(refused.stderr()).contains("--yes");
            assertThat(lease.isValid()).isTrue();
            assertThat(server.command("EXISTS", "stuck:job")).isEqualTo(1L);

            CliProcess noReason = cli("break", "stuck:job", "--yes");
            assertThat(noReason.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);

            CliProcess broke = cli("break", "stuck:job", "--reason", "cron host died", "--yes");
            assertThat(broke.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(broke.stdout()).contains("broke 'stuck:job'").contains("fence now");
            assertThat(server.command("EXISTS", "stuck:job")).isEqualTo(0L);
            assertThat(server.command("HGET", "{stuck:job}:broken", "reason")).isEqualTo("cron host died");
            LeaseLostException lost = lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(lost.getMessage()).contains("no key");

            CliProcess free = cli("break", "stuck:job", "--reason", "again", "--yes");
            assertThat(free.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.NOT_HELD);
            assertThat(free.stderr()).contains("free");
        }
    }

    private CliProcess cli(String... args) {
        return CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.uri()), args);
    }
}
