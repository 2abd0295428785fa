package dev.leasehold.cli;

import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A frozen server (SIGSTOP): while a long command runs under {@code leasehold run}, renewals
 * stop being answered, and the command, its whole process group included, must be stopped
 * before the lease's local deadline; before connecting, the command must say so promptly.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseLossTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Pattern BEFORE_DEADLINE = Pattern.compile("(\\d+) ms before its local deadline");

    private RedisServer server;
    private static final Duration TOLERANCE = Duration.ofMillis(250);

    private CliProcess run;
    private CliProcess second;
    private long pgid;

    @TempDir
    Path dir;

    @BeforeEach
    void startServer() {
        server = RedisServer.builder().start();
    }

    @AfterEach
    void cleanUp() throws IOException, InterruptedException {
        if (run != null) {
            run.destroy();
        }
        if (second != null) {
            second.destroy();
        }
        if (pgid > 0 && !Processes.runningMembers(pgid).isEmpty()) {
            new ProcessBuilder("kill", "-KILL", "--", "-" + pgid).start().waitFor(); // a failed test's leftovers
        }
        server.close(); // SIGKILL ends a paused server too
    }

    @Test
    void aFrozenServerGetsTheCommandAndItsGrandchildrenTerminatedBeforeTheDeadline() throws IOException {
        // sh starts a grandchild and waits for it; the trap records when SIGTERM reached sh.
        run = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.uri()),
                "run", "long-job", "--ttl", "2s", "--grace", "2s", "--", "sh", "-c",
                "trap 'date +%s%N > terminated; exit 143' TERM; echo $$ > pgid; sleep 100 & echo $! > grandchild; wait");
        pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(10)));
        long grandchild = Long.parseLong(Processes.awaitLine(dir.resolve("grandchild"), Duration.ofSeconds(10)));
        assertThat(Processes.runningMembers(pgid)).contains(pgid, grandchild);

        Instant paused = Instant.now();
        server.pause();

        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.LEASE_LOST);
        // The last renewal answered was sent before the pause, so the local deadline falls at most
        // ttl - drift after it: SIGTERM must arrive within the ttl of the pause. With a grace as
        // long as the ttl, it goes out half the ttl before the deadline, the slack this bound leaves.
        Instant terminated = epochNanos(Processes.awaitLine(dir.resolve("terminated"), Duration.ofSeconds(5)));
        assertThat(Duration.between(paused, terminated)).isLessThan(TTL);
        // leasehold's own account, against its own monotonic clock.
        Matcher margin = BEFORE_DEADLINE.matcher(run.stderr());
        assertThat(margin.find()).as("stderr: %s", run.stderr()).isTrue();
        assertThat(Long.parseLong(margin.group(1))).isPositive();
        assertThat(run.stderr()).contains("sending SIGTERM to process group " + pgid);
        // No member of the group runs on, the backgrounded sleep included.
        assertThat(Processes.runningMembers(pgid)).isEmpty();
        assertThat(Processes.isRunning(grandchild)).isFalse();
    }

    @Test
    void aCommandIgnoringSigtermIsDeadByTheLocalDeadlineWhateverTheGraceAndBeforeTheNextHolderRuns()
            throws IOException {
        // trap '' TERM: sh ignores SIGTERM, and so does the sleep it starts, which inherits that.
        // The grace is five times the ttl: it must not stretch the lease.
        run = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.uri()),
                "run", "stubborn-job", "--ttl", "2s", "--grace", "10s", "--", "sh", "-c",
                "trap '' TERM; echo $$ > pgid; sleep 100 & echo $! > grandchild; wait");
        pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(10)));
        long grandchild = Long.parseLong(Processes.awaitLine(dir.resolve("grandchild"), Duration.ofSeconds(10)));
        assertThat(Processes.runningMembers(pgid)).contains(pgid, grandchild);

        Instant paused = Instant.now();
        server.pause();
        // Once the key has expired on the server's clock, a second run may take the lock: start
        // it then, without waiting for the first command to be gone.
        sleepUntil(paused.plus(TTL));
        server.resume();
        second = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.uri()),
                "run", "stubborn-job", "--wait", "20s", "--", "sh", "-c", "date +%s%N > acquired");

        Instant gone = Processes.awaitNoRunningMembers(pgid, Duration.ofSeconds(20));
        // The last renewal answered was sent before the pause, so the local deadline falls within
        // the ttl of it; the tolerance covers this test's own polling.
        assertThat(Duration.between(paused, gone)).isLessThan(TTL.plus(TOLERANCE));
        Instant acquired = epochNanos(Processes.awaitLine(dir.resolve("acquired"), Duration.ofSeconds(20)));
        assertThat(gone).isBefore(acquired);
        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.LEASE_LOST);
        assertThat(run.stderr()).contains("sending SIGKILL");
        assertThat(second.awaitExit(Duration.ofSeconds(30))).isZero();
    }

    @Test
    void theCommandGetsOneSigtermFromLeaseholdNotASecondFromItsLifeline() throws IOException {
        // The command notes each SIGTERM and carries on, so SIGKILL ends it at the deadline.
        run = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.uri()),
                "run", "counted-job", "--ttl", "2s", "--grace", "1s", "--", "sh", "-c",
                "trap 'echo TERM >> terminated' TERM; echo $$ > pgid; while true; do sleep 0.05; done");
        pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(10)));

        server.pause();

        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.LEASE_LOST);
        assertThat(run.stderr()).contains("sending SIGKILL");
        assertThat(Files.readAllLines(dir.resolve("terminated"))).containsExactly("TERM");
    }

    @Test
    void aLeaseRunningOutDuringTheGraceOfAForwardedSigtermBringsTheSigkillForward() throws IOException {
        run = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.uri()),
                "run", "stubborn-job", "--ttl", "2s", "--grace", "60s", "--", "sh", "-c",
                "trap '' TERM; echo $$ > pgid; sleep 100 & wait");
        pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(10)));
        run.process().destroy(); // SIGTERM to leasehold, passed on; the command ignores it
        awaitStderr("passing the signal on");

        Instant paused = Instant.now();
        server.pause();

        Instant gone = Processes.awaitNoRunningMembers(pgid, Duration.ofSeconds(20));
        assertThat(Duration.between(paused, gone)).isLessThan(TTL.plus(TOLERANCE));
    }

    /** Lettuce's own 'WARN Cannot reconnect to [127.0.0.1/<unresolved>:6392]' reached the terminal. */
    @Test
    void aKilledServerIsReportedByLeaseholdAloneNotByTheClientLibrary() throws IOException {
        run = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.uri()),
                "run", "orphaned", "--ttl", "2s", "--", "sh", "-c", "echo $$ > pgid; sleep 100");
        pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(10)));

        server.kill();

        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.LEASE_LOST);
        assertThat(run.stderr()).contains("lost").doesNotContain("reconnect").doesNotContain("io.lettuce");
    }

    @Test
    void aFrozenServerIsReportedUnreachableInSecondsNotAMinute() {
        server.pause();
        long start = System.nanoTime();
        run = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.uri()), "inspect", "any");

        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.UNAVAILABLE);
        // A 3 s handshake bound plus the JVM's start and stop; Lettuce's own default would be 60 s.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
        assertThat(run.stderr()).contains(server.uri()).contains("no answer in time");
    }

    private void awaitStderr(String text) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!run.stderr().contains(text)) {
            assertThat(System.nanoTime() - deadline).as("stderr: %s", run.stderr()).isNegative();
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
    }

    private static void sleepUntil(Instant instant) {
        Duration left = Duration.between(Instant.now(), instant);
        if (!left.isNegative()) {
            LockSupport.parkNanos(left.toNanos());
        }
    }

    private static Instant epochNanos(String text) {
        return Instant.EPOCH.plus(Long.parseLong(text), ChronoUnit.NANOS);
    }
}
