package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code leasehold list} and {@code leasehold break} against locks this test holds through the library. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AdminCommandsTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @TempDir
    Path dir;

    @Test
    void listShowsTheHeldLocksMatchingThePatternRedacted() {
        try (RedisLockClient client = RedisLocks.connect(server.get().uri());
             Lease a = client.lock("report:a").acquire(Duration.ZERO);
             Lease b = client.lock("report:b").acquire(Duration.ZERO);
             Lease other = client.lock("invoice:1").acquire(Duration.ZERO)) {
            String holder = (String) server.get().command("GET", "report:a");

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
        try (RedisLockClient client = RedisLocks.connect(server.get().uri())) {
            Lease lease = client.lock("stuck:job", LockOptions.watchdog(Duration.ofSeconds(3))).acquire(Duration.ZERO);

            CliProcess refused = cli("break", "stuck:job", "--reason", "cron host died");
            assertThat(refused.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
            assertThat(refused.stderr()).contains("--yes");
            assertThat(lease.isValid()).isTrue();
            assertThat(server.get().command("EXISTS", "stuck:job")).isEqualTo(1L);

            CliProcess noReason = cli("break", "stuck:job", "--yes");
            assertThat(noReason.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);

            CliProcess broke = cli("break", "stuck:job", "--reason", "cron host died", "--yes");
            assertThat(broke.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(broke.stdout()).contains("broke 'stuck:job'").contains("fence now");
            assertThat(server.get().command("EXISTS", "stuck:job")).isEqualTo(0L);
            assertThat(server.get().command("HGET", "{stuck:job}:broken", "reason")).isEqualTo("cron host died");
            LeaseLostException lost = lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(lost.getMessage()).contains("no key");

            CliProcess free = cli("break", "stuck:job", "--reason", "again", "--yes");
            assertThat(free.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.NOT_HELD);
            assertThat(free.stderr()).contains("free");
        }
    }

    /**
     * On a terminal (a pty from util-linux {@code script}), break shows the holder and asks: "n"
     * leaves the lock alone (exit 1), "y" breaks it.
     */
    @Test
    void onATerminalBreakAsksFirst() throws Exception {
        try (RedisLockClient client = RedisLocks.connect(server.get().uri())) {
            Lease lease = client.lock("asked:job", LockOptions.watchdog(Duration.ofSeconds(3))).acquire(Duration.ZERO);
            String holder = (String) server.get().command("GET", "asked:job");

            Terminal no = onTerminal("n", "break", "asked:job", "--reason", "testing");
            assertThat(no.exit()).isEqualTo(ExitCodes.NOT_CONFIRMED);
            assertThat(no.output()).contains("Break lock 'asked:job' held by " + holder.substring(0, 6))
                    .contains("Not broken").doesNotContain(holder);
            assertThat(server.get().command("GET", "asked:job")).isEqualTo(holder);

            Terminal yes = onTerminal("y", "break", "asked:job", "--reason", "testing");
            assertThat(yes.exit()).isZero();
            assertThat(yes.output()).contains("broke 'asked:job'");
            assertThat(server.get().command("EXISTS", "asked:job")).isEqualTo(0L);
            assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isNotNull();
        }
    }

    private record Terminal(int exit, String output) {
    }

    private Terminal onTerminal(String answer, String... args) throws Exception {
        StringBuilder command = new StringBuilder();
        command.append(quote(Path.of(System.getProperty("java.home"), "bin", "java").toString()))
                .append(" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp ")
                .append(quote(System.getProperty("java.class.path"))).append(' ').append(Main.class.getName());
        for (String arg : args) {
            command.append(' ').append(quote(arg));
        }
        Path out = dir.resolve("terminal-" + System.nanoTime() + ".txt");
        ProcessBuilder builder = new ProcessBuilder("script", "-qec", command.toString(), "/dev/null")
                .directory(dir.toFile()).redirectOutput(out.toFile()).redirectErrorStream(true);
        builder.environment().put(RedisOption.ENV_VAR, server.get().uri());
        Process process = builder.start();
        process.getOutputStream().write((answer + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
        assertThat(process.waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("exited").isTrue();
        process.getOutputStream().close();
        return new Terminal(process.exitValue(), Files.readString(out));
    }

    private static String quote(String arg) {
        return "'" + arg.replace("'", "'\\''") + "'";
    }

    private CliProcess cli(String... args) {
        return CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.get().uri()), args);
    }
}
