package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A contender whose warm-up throws (as Redisson's RFairLock did with "Unable to acquire
 * subscription lock after 7500ms") is recorded as a failed cell with that one-line message, the
 * contended workload goes on to measure the contenders after it, on a real redis-server, and the
 * partial report written from the results so far shows the failure and its ratios as n/a; the
 * same for the handoff workload, in both pairings.
 */
class FailingCellTest {

    private static final String MESSAGE = "Unable to acquire subscription lock after 7500ms";

    @Test
    @Timeout(120)
    void aFailingWarmUpIsRecordedAndTheNextContenderIsMeasured() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Progress progress = new Progress(new PrintStream(log, true, StandardCharsets.UTF_8));
        try (RedisServer server = RedisServer.builder().start()) {
            ContendedWorkload.Result result = new ContendedWorkload(server, BenchSettings.smoke().contended(), progress,
                    ContendedWorkload.Clients.CLIENT_PER_THREAD, (contender, uris) -> contender == Contender.REDISSON_FAIR
                    ? failing(contender) : contender.open(uris, Contender.DEFAULT_TTL))
                    .run(Contender.CLIENT_PER_THREAD);

            assertThat(result.failures()).containsOnlyKeys(Contender.REDISSON_FAIR);
            CellFailure failure = result.failures().get(Contender.REDISSON_FAIR);
            assertThat(failure.message()).isEqualTo("IllegalStateException: " + MESSAGE);
            assertThat(failure.report()).startsWith("failed: IllegalStateException: " + MESSAGE)
                    .contains("failure of the peer");
            assertThat(result.cells()).containsOnlyKeys(Contender.LEASEHOLD, Contender.REDISSON, Contender.LEASEHOLD_FAIR);
            assertThat(log.toString(StandardCharsets.UTF_8)).contains("round 1/1: Leasehold fair lock");

            ResultsSoFar run = new ResultsSoFar(BenchSettings.smoke(), Machine.describe(RedisStats.version(server)),
                    List.of(server), ProcessCpu.loadAverage(), System.nanoTime());
            run.contendedPerThread = result;
            BenchResults partial = run.snapshot();
            String report = ResultsWriter.render(partial);
            assertThat(report).contains("**Partial report**", "## 4. Contended",
                    "| Redisson RFairLock | failed: IllegalStateException: " + MESSAGE
                            + " (a failure of the peer, not of Leasehold) | n/a |",
                    "| Leasehold fair lock | ", "| n/a |")
                    .doesNotContain("## 5. Handoff", "## 3. Contended");
            assertThat(Targets.family(partial)).filteredOn(check -> check.target().contains("Leasehold fair lock"))
                    .extracting(Targets.Check::verdict).containsOnly("n/a");
            assertThat(partial.leaseholdFailed()).isFalse();
        }
    }

    @Test
    @Timeout(120)
    void aFailingHandoffCellIsRecordedInEachPairingAndTheOthersAreMeasured() {
        Progress progress = new Progress(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try (RedisServer server = RedisServer.builder().start()) {
            // The first party's acquire throws while the second waits for its turn: the session must end, not hang.
            HandoffWorkload.Result result = new HandoffWorkload(server, BenchSettings.smoke().handoff(), progress,
                    (contender, uris) -> contender == Contender.REDISSON_FAIR
                            ? failing(contender) : contender.open(uris, Contender.DEFAULT_TTL))
                    .run(Contender.HANDOFF);

            for (HandoffWorkload.Pairing pairing : HandoffWorkload.Pairing.values()) {
                assertThat(result.failures().get(pairing)).containsOnlyKeys(Contender.REDISSON_FAIR);
                assertThat(result.cells().get(pairing)).hasSize(Contender.HANDOFF.size() - 1)
                        .doesNotContainKey(Contender.REDISSON_FAIR);
            }
            ResultsSoFar run = new ResultsSoFar(BenchSettings.smoke(), Machine.describe(RedisStats.version(server)),
                    List.of(server), ProcessCpu.loadAverage(), System.nanoTime());
            run.handoff = result;
            BenchResults partial = run.snapshot();
            assertThat(ResultsWriter.render(partial)).contains("## 5. Handoff latency",
                    "| separate clients | Redisson RFairLock | failed: IllegalStateException: " + MESSAGE);
            assertThat(Targets.family(partial)).filteredOn(check -> check.target().contains("Leasehold fair lock"))
                    .extracting(Targets.Check::verdict).containsOnly("n/a");
            assertThat(Targets.evaluate(partial)).extracting(Targets.Check::verdict).doesNotContain("n/a");
            assertThat(partial.failures()).hasSize(2);
        }
    }

    @Test
    @Timeout(120)
    void aContenderFailingInAMeasuredRoundGetsNoCellAndEachOfItsClientsIsClosedOnce() {
        Progress progress = new Progress(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        Set<String> names = ConcurrentHashMap.newKeySet();
        AtomicInteger opened = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        try (RedisServer server = RedisServer.builder().start()) {
            // Each window takes a fresh name: the warm-up's and the probe's pass, the first round's throws.
            ContendedWorkload.Result result = new ContendedWorkload(server, BenchSettings.smoke().contended(), progress,
                    ContendedWorkload.Clients.CLIENT_PER_THREAD, (contender, uris) -> {
                        LockAdapter real = contender.open(uris, Contender.DEFAULT_TTL);
                        if (contender != Contender.REDISSON_FAIR) {
                            return real;
                        }
                        opened.incrementAndGet();
                        return failingAfter(2, real, names, closed, real.label());
                    }).run(Contender.CLIENT_PER_THREAD);

            assertThat(result.failures()).containsOnlyKeys(Contender.REDISSON_FAIR);
            assertThat(result.failures().get(Contender.REDISSON_FAIR).message()).isEqualTo("IllegalStateException: " + MESSAGE);
            assertThat(result.probes()).containsKey(Contender.REDISSON_FAIR);
            assertThat(result.cells()).containsOnlyKeys(Contender.LEASEHOLD, Contender.REDISSON, Contender.LEASEHOLD_FAIR);
            assertThat(opened.get()).isEqualTo(BenchSettings.smoke().contended().threads());
            assertThat(closed).hasValue(opened.get());
        }
    }

    /** A client whose every acquire throws the way Redisson's did under contention. */
    private static LockAdapter failing(Contender contender) {
        return failingAfter(0, null, ConcurrentHashMap.newKeySet(), new AtomicInteger(), contender.label());
    }

    /**
     * A client labelled {@code label} whose acquires throw as {@link #failing} does from the lock name
     * after the first {@code passing} names in {@code names} (shared by a contender's clients), which go
     * to {@code real}; each close counts in {@code closed} and closes {@code real}, if any.
     */
    private static LockAdapter failingAfter(int passing, LockAdapter real, Set<String> names, AtomicInteger closed,
                                            String label) {
        return new LockAdapter() {
            @Override
            public String label() {
                return label;
            }

            @Override
            public Handle lock(String name) {
                names.add(name);
                if (names.size() <= passing) {
                    return real.lock(name);
                }
                return () -> {
                    throw new IllegalStateException(MESSAGE);
                };
            }

            @Override
            public void close() {
                closed.incrementAndGet();
                if (real != null) {
                    real.close();
                }
            }
        };
    }
}
