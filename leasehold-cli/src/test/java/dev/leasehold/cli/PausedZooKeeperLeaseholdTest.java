package dev.leasehold.cli;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code leasehold run --backend zookeeper} paused by SIGSTOP (issue 19, item 2): the ZooKeeper
 * session frees the lock when it expires, so the command must be dead before then, whatever the
 * ttl. Today's ttl of 20 s against the fixed 15 s session let a second command start while the
 * first still ran. Here the first command writes a timestamp every 50 ms until it is killed, the
 * second writes one when it starts: the first's last must come before the second's.
 */
@Tag("faults")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PausedZooKeeperLeaseholdTest {

    private final List<CliProcess> started = new ArrayList<>();
    private long pgid;

    @TempDir
    Path dir;

    @AfterEach
    void cleanUp() throws IOException, InterruptedException {
        for (CliProcess process : started) {
            signal("CONT", process.process().pid());
            process.destroy();
        }
        if (pgid > 0 && !Processes.runningMembers(pgid).isEmpty()) {
            signal("KILL", -pgid);
        }
    }

    @Test
    void aPausedLeaseholdsCommandIsDeadBeforeTheSessionFreesTheLockForAnother() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            CliProcess first = run("run", "zk-paused", "--ttl", "20s", "--grace", "1s", "--backend", "zookeeper",
                    "--endpoints", zookeeper.getConnectString(), "--", "sh", "-c",
                    "echo $$ > pgid; while true; do date +%s%N >> beats; sleep 0.05; done");
            pgid = Long.parseLong(Processes.awaitLine(dir.resolve("pgid"), Duration.ofSeconds(20)));
            signal("STOP", first.process().pid());

            CliProcess second = run("run", "zk-paused", "--ttl", "20s", "--wait", "60s", "--backend", "zookeeper",
                    "--endpoints", zookeeper.getConnectString(), "--", "sh", "-c", "date +%s%N > started");
            assertThat(second.awaitExit(Duration.ofSeconds(75))).as("stderr: %s", second.stderr()).isZero();
            long secondStarted = Long.parseLong(Files.readString(dir.resolve("started")).strip());
            List<String> beats = Files.readAllLines(dir.resolve("beats"));
            long lastBeat = Long.parseLong(beats.get(beats.size() - 1).strip());
            System.out.printf("the paused holder's command last wrote %d ms before the second command started%n",
                    TimeUnit.NANOSECONDS.toMillis(secondStarted - lastBeat));
            assertThat(lastBeat).as("the first command's last write, before the second command started")
                    .isLessThan(secondStarted);
            signal("CONT", first.process().pid());
            assertThat(first.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.LEASE_LOST);
        }
    }

    @Test
    void aTtlLongerThanAZooKeeperSessionMayBeIsRefused() {
        CliProcess tooLong = run("run", "x", "--ttl", "11m", "--backend", "zookeeper", "--endpoints", "127.0.0.1:1",
                "--", "true");
        assertThat(tooLong.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
        assertThat(tooLong.stderr()).contains("--ttl must be at most 10m with --backend zookeeper");
    }

    private CliProcess run(String... args) {
        CliProcess process = CliProcess.start(dir, Map.of(), args);
        started.add(process);
        return process;
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        new ProcessBuilder(List.of("kill", "-" + name, "--", Long.toString(pid))).inheritIO().start().waitFor();
    }
}
