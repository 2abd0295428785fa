package dev.leasehold.cli;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code leasehold run} as real processes against a real redis-server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RunCommandTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    /** Shell that blocks until the test creates the file "go" in the working directory. */
    private static final String UNTIL_GO = "while [ ! -e go ]; do sleep 0.05; done";

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private final List<CliProcess> started = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void killLeftovers() {
        started.forEach(CliProcess::destroy);
    }

    @Test
    void ofTwoRunsWithWaitZeroExactlyOneRunsItsCommandAndTheOtherExitsNotObtained() throws IOException {
        // Each command holds the lock until the test says "go", so the two runs overlap however
        // slowly their JVMs start.
        String[] args = {"run", "cron-job", "--wait", "0", "--", "sh", "-c", "echo $$ >> ran; " + UNTIL_GO};
        CliProcess first = run(args);
        CliProcess second = run(args);
        eventually(() -> !first.process().isAlive() || !second.process().isAlive(), "one of the two runs exited",
                EXIT_TIMEOUT);
        Files.createFile(dir.resolve("go"));

        int[] codes = {first.awaitExit(EXIT_TIMEOUT), second.awaitExit(EXIT_TIMEOUT)};

        assertThat(codes).containsExactlyInAnyOrder(ExitCodes.OK, ExitCodes.NOT_OBTAINED);
        assertThat(Files.readAllLines(dir.resolve("ran"))).hasSize(1);
        CliProcess loser = codes[0] == ExitCodes.NOT_OBTAINED ? first : second;
        assertThat(loser.stderr()).contains("not obtained").contains("the command did not run");
    }

    @Test
    void ofTwoRunsOneSecondApartWithHoldAtLeastOnlyTheFirstRunsItsCommand() throws Exception {
        String[] args = {"run", "cron-held", "--wait", "0", "--hold-at-least", "5s", "--", "sh", "-c", "echo $$ >> ran"};
        CliProcess first = run(args);
        assertThat(first.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.OK);
        assertThat((Long) server.get().command("PTTL", "cron-held")).as("kept on the server after the first run exited")
                .isPositive();
        Thread.sleep(1_000);
        CliProcess second = run(args);

        assertThat(second.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.NOT_OBTAINED);
        assertThat(Files.readAllLines(dir.resolve("ran"))).hasSize(1);
        assertThat(second.stderr()).contains("not obtained").contains("the command did not run");
    }

    @Test
    void withWaitTheSecondCommandStartsAfterTheFirstExitsAndSeesALargerToken() throws IOException {
        CliProcess first = run("run", "nightly", "--", "sh", "-c",
                "echo $LEASEHOLD_TOKEN > token-1; " + UNTIL_GO + "; date +%s%N > end-1");
        Processes.awaitLine(dir.resolve("token-1"), Duration.ofSeconds(20)); // the first holds the lock now
        CliProcess second = run("run", "nightly", "--wait", "10s", "--", "sh", "-c",
                "date +%s%N > start-2; echo $LEASEHOLD_TOKEN > token-2");
        // stderr is a file here, not a terminal: plain lines, no carriage returns.
        eventually(() -> second.stderr().contains("waiting for lock 'nightly': held by"), "the second run says it waits",
                EXIT_TIMEOUT);
        Files.createFile(dir.resolve("go"));

        assertThat(first.awaitExit(EXIT_TIMEOUT)).isZero();
        assertThat(second.awaitExit(EXIT_TIMEOUT)).isZero();

        long firstEnded = Long.parseLong(read("end-1"));
        long secondStarted = Long.parseLong(read("start-2"));
        assertThat(secondStarted).isGreaterThanOrEqualTo(firstEnded);
        assertThat(Long.parseLong(read("token-2"))).isGreaterThan(Long.parseLong(read("token-1")));
        assertThat(second.stderr()).doesNotContain("\r");
    }

    @Test
    void theCommandsExitCodeBecomesOursAndTheLockIsReleased() {
        CliProcess exitsSeven = run("run", "pass-through", "--", "sh", "-c",
                "test \"$LEASEHOLD_LOCK\" = pass-through && test -n \"$LEASEHOLD_TOKEN\" && exit 7");
        assertThat(exitsSeven.awaitExit(EXIT_TIMEOUT)).isEqualTo(7);
        assertThat(server.get().command("EXISTS", "pass-through")).isEqualTo(0L);

        CliProcess killedBySignal = run("run", "pass-through", "--", "sh", "-c", "kill -KILL $$");
        assertThat(killedBySignal.awaitExit(EXIT_TIMEOUT)).isEqualTo(128 + 9);
        assertThat(server.get().command("EXISTS", "pass-through")).isEqualTo(0L);
    }

    @Test
    void aMissingCommandExitsWithTheShellsNotFoundCode() {
        CliProcess missing = run("run", "missing", "--", "no-such-command-leasehold-test");
        assertThat(missing.awaitExit(EXIT_TIMEOUT)).isEqualTo(127);
        assertThat(server.get().command("EXISTS", "missing")).isEqualTo(0L);
        // bash's own message named a line of the launcher's prologue: 'leasehold: line 8: ...'.
        assertThat(missing.stderr()).contains("leasehold: no-such-command-leasehold-test: command not found")
                .doesNotContain("line ");
    }

    @Test
    void aFileThatIsNotExecutableExitsWithTheShellsCannotExecuteCode() throws Exception {
        Path script = Files.writeString(dir.resolve("not-executable.sh"), "echo hi\n");
        CliProcess run = run("run", "not-executable", "--", script.toString());
        assertThat(run.awaitExit(EXIT_TIMEOUT)).isEqualTo(126);
        assertThat(run.stderr()).contains("cannot execute " + script + ": not an executable file").doesNotContain("line ");
    }

    @Test
    void sigtermToLeaseholdReachesTheCommandAndTheLockIsReleased() {
        CliProcess run = run("run", "forwarded", "--", "sh", "-c",
                "trap 'echo TERM > got; exit 3' TERM; echo $$ > pgid; while :; do sleep 0.1; done");
        long pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(10)));

        run.process().destroy(); // SIGTERM to the leasehold JVM

        // The JVM ends with the signal's status, as a shell would report it: 128 + 15.
        assertThat(run.awaitExit(EXIT_TIMEOUT)).isEqualTo(128 + 15);
        assertThat(Processes.awaitLine(dir.resolve("got"), Duration.ofSeconds(5))).isEqualTo("TERM");
        assertThat(Processes.runningMembers(pgid)).isEmpty();
        assertThat(server.get().command("EXISTS", "forwarded")).isEqualTo(0L);
        assertThat(run.stderr()).contains("passing the signal on: sending SIGTERM to process group " + pgid);
    }

    @Test
    void aKilledLeaseholdTakesTheCommandAndItsGrandchildrenWithIt() {
        // TERM is ignored, so only SIGKILL ends this group.
        CliProcess run = run("run", "orphaned", "--", "sh", "-c",
                "trap '' TERM; echo $$ > pgid; sleep 100 & echo $! > grandchild; wait");
        long pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(10)));
        long grandchild = Long.parseLong(Processes.awaitLine(dir.resolve("grandchild"), Duration.ofSeconds(10)));
        assertThat(Processes.runningMembers(pgid)).contains(pgid, grandchild);

        run.process().destroyForcibly(); // SIGKILL to the leasehold JVM: no hook, no cleanup of its own
        run.awaitExit(EXIT_TIMEOUT);

        try {
            Processes.awaitNoRunningMembers(pgid, Duration.ofSeconds(5));
        } finally {
            killGroup(pgid); // a failed test's leftovers
        }
        assertThat(Processes.isRunning(grandchild)).isFalse();
    }

    @Test
    void anUnreachableServerExitsUnavailableWithoutShowingThePassword() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        CliProcess run = run(Map.of(RedisOption.ENV_VAR, "redis://admin:s3cret-pw@127.0.0.1:" + closedPort),
                "run", "unreachable", "--", "true");

        assertThat(run.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(run.stderr()).contains("127.0.0.1:" + closedPort).doesNotContain("s3cret-pw").doesNotContain("admin");
    }

    private CliProcess run(String... args) {
        return run(Map.of(RedisOption.ENV_VAR, server.get().uri()), args);
    }

    private CliProcess run(Map<String, String> env, String... args) {
        CliProcess process = CliProcess.start(dir, env, args);
        started.add(process);
        return process;
    }

    private static void killGroup(long pgid) {
        if (!Processes.runningMembers(pgid).isEmpty()) {
            try {
                new ProcessBuilder("kill", "-KILL", "--", "-" + pgid).start().waitFor();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private String read(String file) throws IOException {
        return Files.readString(dir.resolve(file), StandardCharsets.UTF_8).strip();
    }
}
