package dev.leasehold.cli;

import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis password kept out of {@code ps} (issue 22): in {@value RedisOption#ENV_VAR} or in the
 * file {@code --redis-file} names, the URI reaches the server while the process's command line
 * (what {@code ps} shows any user) never holds the password, nor does any output.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisCredentialsTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final String PASSWORD = "cli-file-secret-91";

    private static RedisServer server;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServer() {
        server = RedisServer.builder().requirePass(PASSWORD).start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static String uriWithPassword() {
        return server.uri().replace("redis://", "redis://:" + PASSWORD + "@");
    }

    @Test
    void aUriFromTheEnvironmentLocksWithoutThePasswordOnTheCommandLine() throws IOException {
        holdsTheLockWithoutShowingThePassword(Map.of(RedisOption.ENV_VAR, uriWithPassword()), "env-job");
    }

    @Test
    void aUriFromAFileLocksWithoutThePasswordOnTheCommandLineOrInTheEnvironment() throws IOException {
        Path file = Files.writeString(dir.resolve("redis.uri"), uriWithPassword() + "\n");
        Shown shown = holdsTheLockWithoutShowingThePassword(Map.of(), "file-job", "--redis-file", file.toString());
        assertThat(shown.environment()).doesNotContain(PASSWORD);
        assertThat(shown.output()).doesNotContain(PASSWORD);
    }

    /** Windows editors start UTF-8 with a byte order mark; it was kept, and the URI "must start with redis://". */
    @Test
    void aFileThatStartsWithAByteOrderMarkConnects() throws IOException {
        Path file = Files.writeString(dir.resolve("bom.uri"), "\uFEFF" + uriWithPassword() + "\r\n");
        CliProcess inspect = CliProcess.start(dir, Map.of(), "inspect", "bom-job", "--redis-file", file.toString());
        assertThat(inspect.awaitExit(EXIT_TIMEOUT)).as(inspect.stderr()).isZero();
        assertThat(inspect.stdout() + inspect.stderr()).doesNotContain(PASSWORD);
    }

    @Test
    void aFileThatIsMissingEmptyOrGivenWithRedisIsAUsageErrorThatNeverShowsItsContent() throws IOException {
        CliProcess missing = CliProcess.start(dir, Map.of(), "inspect", "x", "--redis-file", "no-such-file");
        assertThat(missing.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(missing.stderr()).contains("--redis-file: no-such-file does not exist");

        Path empty = Files.writeString(dir.resolve("empty.uri"), "\n");
        CliProcess blank = CliProcess.start(dir, Map.of(), "inspect", "x", "--redis-file", empty.toString());
        assertThat(blank.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(blank.stderr()).contains("is empty; it must hold the URI");

        Path file = Files.writeString(dir.resolve("redis.uri"), uriWithPassword());
        CliProcess both = CliProcess.start(dir, Map.of(), "inspect", "x", "--redis-file", file.toString(),
                "--redis", server.uri());
        assertThat(both.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(both.stderr()).contains("give the Redis URI once").doesNotContain(PASSWORD);

        Path wrong = Files.writeString(dir.resolve("wrong.uri"), server.uri().replace("redis://", "redis://:nope-" + PASSWORD + "@"));
        CliProcess refused = CliProcess.start(dir, Map.of(), "inspect", "x", "--redis-file", wrong.toString());
        assertThat(refused.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(refused.stderr()).doesNotContain(PASSWORD);

        Path malformed = Files.writeString(dir.resolve("malformed.uri"), "redis://:" + PASSWORD + "@localhost:63x1");
        CliProcess usage = CliProcess.start(dir, Map.of(), "inspect", "x", "--redis-file", malformed.toString());
        assertThat(usage.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(usage.stderr()).contains("--redis-file").contains("not a number").doesNotContain(PASSWORD);
    }

    /** What the leasehold process showed: its environment while it ran, and its output. */
    private record Shown(String environment, String output) {
    }

    /** Runs a command under the lock and, while it runs, reads the leasehold process's command line. */
    private Shown holdsTheLockWithoutShowingThePassword(Map<String, String> env, String name, String... options)
            throws IOException {
        String[] args = new String[options.length + 6];
        args[0] = "run";
        args[1] = name;
        System.arraycopy(options, 0, args, 2, options.length);
        System.arraycopy(new String[] {"--", "sh", "-c", "echo held > held; while [ ! -e go ]; do sleep 0.05; done"},
                0, args, 2 + options.length, 4);
        CliProcess holder = CliProcess.start(dir, env, args);
        try {
            Processes.awaitLine(dir.resolve("held"), Duration.ofSeconds(20));
            assertThat(server.command("EXISTS", name)).as("the lock is held on the server").isEqualTo(1L);
            Path proc = Path.of("/proc", Long.toString(holder.process().pid()));
            String commandLine = Files.readString(proc.resolve("cmdline"), StandardCharsets.UTF_8);
            assertThat(commandLine).contains(name).doesNotContain(PASSWORD);
            String environment = Files.readString(proc.resolve("environ"), StandardCharsets.UTF_8);
            Files.createFile(dir.resolve("go"));
            assertThat(holder.awaitExit(EXIT_TIMEOUT)).isZero();
            return new Shown(environment, holder.stdout() + holder.stderr());
        } finally {
            holder.destroy();
        }
    }
}
