package dev.leasehold.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code leasehold demo --failover} as a real process: it starts a master, a replica and three
 * Sentinels, loses A's lock in the failover, grants it to B while A's lease is valid, and the
 * guard refuses A's late write; every server it started is gone when it exits.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class FailoverDemoTest {

    private static final Pattern PID = Pattern.compile("\\(pid (\\d+)\\)");

    @TempDir
    Path dir;

    private CliProcess demo;

    @AfterEach
    void stop() {
        if (demo != null) {
            demo.destroy();
        }
    }

    @Test
    void theLockIsGrantedTwiceAcrossTheFailoverAndTheGuardRefusesAsLateWrite() {
        long start = System.nanoTime();
        demo = CliProcess.start(dir, Map.of(), "demo", "--failover");

        assertThat(demo.awaitExit(Duration.ofSeconds(60))).as("stdout: %s%nstderr: %s", demo.stdout(), demo.stderr())
                .isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(45));
        Map<String, String> result = result(demo.stdout());
        assertThat(result).containsEntry("double_grant", "true").containsEntry("a_write", "refused")
                .containsEntry("final", "130");
        assertThat(Long.parseLong(result.get("b_token"))).isGreaterThan(Long.parseLong(result.get("a_token")));
        assertThat(demo.stdout()).contains("granted by the master only", "TWO HOLDERS", "REFUSED: B's token is higher");
        List<Long> pids = pids(demo.stdout());
        assertThat(pids).as("master, replica and three Sentinels").hasSize(5);
        assertThat(pids).noneMatch(Processes::isRunning);
        assertThat(demo.stderr()).isEmpty();
    }

    @Test
    void ctrlCStopsEveryServerTheDemoStarted() throws Exception {
        demo = CliProcess.start(dir, Map.of(), "demo", "--failover");
        List<Long> pids = awaitPids();
        assertThat(pids).hasSize(5).allMatch(Processes::isRunning);

        // SIGINT, what Ctrl-C sends, while the demo runs its story
        new ProcessBuilder("kill", "-INT", Long.toString(demo.process().pid())).inheritIO().start().waitFor();

        assertThat(demo.awaitExit(Duration.ofSeconds(20))).isNotZero();
        assertThat(pids).noneMatch(Processes::isRunning);
    }

    @Test
    void failoverWithRedisIsAUsageError() {
        demo = CliProcess.start(dir, Map.of(), "demo", "--failover", "--redis", "redis://127.0.0.1:1");

        assertThat(demo.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
        assertThat(demo.stderr()).contains("--failover").contains("--redis");
        assertThat(demo.stdout()).isEmpty();
    }

    private List<Long> awaitPids() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while (System.nanoTime() < deadline) {
            List<Long> pids = pids(demo.stdout());
            if (pids.size() == 5) {
                return pids;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        throw new AssertionError("the demo did not name its servers; stdout: " + demo.stdout() + "\nstderr: " + demo.stderr());
    }

    private static List<Long> pids(String stdout) {
        List<Long> pids = new ArrayList<>();
        Matcher matcher = PID.matcher(stdout.lines().limit(3).collect(Collectors.joining("\n")));
        while (matcher.find()) {
            pids.add(Long.parseLong(matcher.group(1)));
        }
        return pids;
    }

    private static Map<String, String> result(String stdout) {
        String line = stdout.lines().filter(l -> l.startsWith(DemoCommand.RESULT + " story=failover "))
                .findFirst().orElseThrow(() -> new AssertionError("no result line in:\n" + stdout));
        return Arrays.stream(line.split(" ")).skip(1).map(pair -> pair.split("=", 2))
                .collect(Collectors.toMap(pair -> pair[0], pair -> pair[1], (a, b) -> b));
    }
}
