package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A paused leasehold JVM (SIGSTOP here; a long GC or safepoint pause, a CPU-throttled container in
 * real life) can neither renew nor run its {@link LeaseWatch}: the lifeline must then stop the
 * command on the lease's schedule by itself, without killing a command whose lease is healthy.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PausedLeaseholdTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration TOLERANCE = Duration.ofMillis(250);

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    private CliProcess run;
    private long pgid;

    @TempDir
    Path dir;

    @AfterEach
    void cleanUp() throws IOException, InterruptedException {
        if (run != null) {
            signal("CONT", run.process().pid());
            run.destroy();
        }
        if (pgid > 0 && !Processes.runningMembers(pgid).isEmpty()) {
            signal("KILL", -pgid); // a failed test's leftovers
        }
    }

    @Test
    void aPausedLeaseholdHasItsCommandKilledByTheLifelineBeforeAnotherHolderGetsTheLock() throws Exception {
        // The command ignores SIGTERM (its sleeps do not), so only a SIGKILL ends it.
        run = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.get().uri()),
                "run", "paused-job", "--ttl", "2s", "--grace", "1s", "--", "sh", "-c",
                "trap 'date +%s%N >> terminated' TERM; echo $$ > pgid; while true; do sleep 0.1; done");
        pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(20)));
        Instant paused = Instant.now();
        signal("STOP", run.process().pid());

        // The last renewal answered was sent before the pause, so the local deadline falls within
        // the ttl of it; the tolerance covers this test's own polling.
        Instant gone = Processes.awaitNoRunningMembers(pgid, Duration.ofSeconds(20));
        assertThat(Duration.between(paused, gone)).isLessThan(TTL.plus(TOLERANCE));
        // SIGTERM went out first, while leasehold was still paused.
        assertThat(Files.readAllLines(dir.resolve("terminated"))).isNotEmpty();
        try (RedisLockClient other = RedisLocks.connect(server.get().uri());
             Lease lease = other.lock("paused-job").acquire(Duration.ofSeconds(10))) {
            assertThat(Processes.runningMembers(pgid))
                    .as("the command, while token %d of another holder is valid", lease.token())
                    .isEmpty();
        }

        signal("CONT", run.process().pid());
        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.LEASE_LOST);
    }

    @Test
    void renewalsKeepTheLifelineFromStoppingACommandThatRunsForSeveralTtls() throws IOException {
        // The shortest ttl allowed leaves the lifeline the least slack after each renewal.
        run = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.get().uri()),
                "run", "healthy-job", "--ttl", "1s", "--grace", "5s", "--", "sh", "-c",
                "trap 'echo TERM >> terminated; exit 143' TERM; echo $$ > pgid; "
                        + "i=0; while [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done; echo done");
        pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(20)));

        assertThat(run.awaitExit(Duration.ofSeconds(30))).as("stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout()).isEqualTo("done\n");
        assertThat(dir.resolve("terminated")).doesNotExist();
        assertThat(run.stderr()).doesNotContain("SIGTERM").doesNotContain("lease on");
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        new ProcessBuilder(List.of("kill", "-" + name, "--", Long.toString(pid))).inheritIO().start().waitFor();
    }
}
