package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.StaleTokenException;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.launcher.Signals;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Hold;
import dev.leasehold.testkit.history.Verdict;
import dev.leasehold.testkit.history.Write;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 19's "pause a client past its lease" on etcd: a holder in a child JVM ({@link PausedHolderProbe})
 * is SIGSTOPped for several ttls while it holds; another client gets the lock once etcd expired the
 * child's lease and writes; then the child resumes and sends its late writes. History-checked: no
 * stale write admitted, no two valid holders at once (the time with two is printed, expected 0 ms),
 * and the child's first check after its pause reports the loss (its local deadline passed while it
 * was frozen), so it never claims the lock again. {@code -Dfaults.minutes=N} repeats it for N minutes.
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdPausedClientTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private EtcdCluster cluster;
    private Process child;

    @AfterEach
    void cleanUp() throws Exception {
        if (child != null) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aClientFrozenPastItsLeaseLosesItBeforeAnotherHoldsAndItsLateWritesAreRefused() throws Exception {
        cluster = EtcdCluster.start(3);
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(Long.getLong("faults.minutes", 0));
        for (int round = 0; round == 0 || System.nanoTime() - end < 0; round++) {
            freezeOnce("paused:client:" + round);
        }
    }

    private void freezeOnce(String name) throws Exception {
        History history = new History();
        CounterResource resource = new CounterResource(history, true);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        child = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                PausedHolderProbe.class.getName(), cluster.endpoints(), name, String.valueOf(TTL.toMillis()))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        ChildReport report = new ChildReport(resource, history);
        Thread reader = new Thread(() -> report.read(child), "child-reader");
        reader.start();
        assertThat(report.acquired.await(60, TimeUnit.SECONDS)).as("the child took the lock").isTrue();
        Thread.sleep(500); // a few claims and writes, a renewal
        Signals.stop(child.pid());
        long stoppedAt = System.nanoTime();

        EtcdLockClient other = EtcdLocks.connect(cluster.endpoints());
        Lease taken;
        long acquired;
        try (other) {
            taken = other.lock(name, LockOptions.watchdog(TTL)).acquire(Duration.ofSeconds(20));
            acquired = System.nanoTime();
            resource.increment("other", taken.token(), resource.read(taken.token()));
            long resumedAt = System.nanoTime(); // before SIGCONT: the child cannot run before this
            Signals.cont(child.pid());
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the child saw its loss and exited").isTrue();
            reader.join(10_000);
            long claimed = taken.isValid() ? System.nanoTime() : acquired;
            history.hold(new Hold("other", taken.token(), acquired, acquired, claimed));
            taken.release();
            history.hold(new Hold("child", report.token, report.sent, report.acquiredAt, report.lastClaim));

            Verdict verdict = HistoryChecker.check(history);
            double overlap = Overlaps.totalMillis(history.holds());
            System.out.printf("paused client: two valid holders for %.1f ms; frozen %.0f ms; the other client got the lock"
                            + " %.0f ms into the freeze; the child's first check after resuming was invalid %.1f ms after"
                            + " SIGCONT; %s%n", overlap, (resumedAt - stoppedAt) / 1e6, (acquired - stoppedAt) / 1e6,
                    (report.invalidAt - resumedAt) / 1e6, verdict);
            assertThat(verdict.staleWritesAdmitted()).as(verdict.toString()).isZero();
            assertThat(verdict.overlaps()).as(verdict.toString()).isZero();
            assertThat(overlap).isZero();
            assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
            assertThat(verdict.refusedWrites()).as("the child's late writes were refused").isPositive();
            assertThat(report.claims).as("claims after the freeze").noneMatch(at -> at > stoppedAt);
            assertThat(report.lastClaim).as("the last claim fell before its local deadline").isLessThanOrEqualTo(report.lastDeadline);
            assertThat(report.invalidAt).as("the child's first check after the freeze reported the loss")
                    .isGreaterThan(resumedAt);
            assertThat(report.lostAt).as("lost() completed").isPositive();
        }
    }

    /** What the child reported, and its writes applied to the resource as they arrive. */
    private static final class ChildReport {
        final CountDownLatch acquired = new CountDownLatch(1);
        final List<Long> claims = new CopyOnWriteArrayList<>();
        private final CounterResource resource;
        private final History history;
        volatile long token;
        volatile long sent;
        volatile long acquiredAt;
        volatile long lastClaim;
        volatile long lastDeadline;
        volatile long invalidAt;
        volatile long lostAt;

        ChildReport(CounterResource resource, History history) {
            this.resource = resource;
            this.history = history;
        }

        void read(Process process) {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    String[] word = line.split(" ");
                    switch (word[0]) {
                        case "ACQUIRED" -> {
                            token = Long.parseLong(word[1]);
                            sent = Long.parseLong(word[2]);
                            acquiredAt = Long.parseLong(word[3]);
                            lastClaim = acquiredAt;
                            acquired.countDown();
                        }
                        case "CLAIM" -> {
                            lastClaim = Long.parseLong(word[1]);
                            lastDeadline = Long.parseLong(word[2]);
                            claims.add(lastClaim);
                        }
                        case "WRITE" -> write(Long.parseLong(word[1]));
                        case "INVALID" -> invalidAt = Long.parseLong(word[1]);
                        case "LOST" -> lostAt = Long.parseLong(word[1]);
                        default -> {
                            // a log line on stdout: not part of the report
                        }
                    }
                }
            } catch (java.io.IOException closed) {
                // the child was killed
            }
        }

        private void write(long writeToken) {
            try {
                resource.increment("child", writeToken, resource.read(writeToken));
            } catch (StaleTokenException refused) {
                history.write(new Write("child", writeToken, false, -1, -1));
            }
        }
    }
}
