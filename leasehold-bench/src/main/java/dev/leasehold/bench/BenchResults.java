package dev.leasehold.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Everything one run measured, and the conditions it ran under. A workload's result is null when
 * it had not finished when these results were taken (a partial report of a run in progress).
 *
 * @param settings     the durations and sizes used
 * @param machine      machine, JDK, server and library versions
 * @param uncontended  the uncontended rows of the mutexes (JMH)
 * @param family       the uncontended rows of the read locks and semaphores (JMH)
 * @param contended    the contended rows, threads of one client
 * @param contendedPerThread the contended rows, one client per thread
 * @param handoff      the handoff rows
 * @param watchdog     the watchdog row
 * @param redlock      the Redlock row: uncontended, 1 thread, on {@code redlockNodes} servers
 * @param redlockNodes servers the Redlock row used
 * @param conditions   load and foreign CPU use around the run
 */
record BenchResults(BenchSettings settings, Machine machine, UncontendedWorkload.Result uncontended,
                    UncontendedWorkload.Result family, ContendedWorkload.Result contended,
                    ContendedWorkload.Result contendedPerThread, HandoffWorkload.Result handoff,
                    WatchdogWorkload.Result watchdog, UncontendedWorkload.Result redlock, int redlockNodes,
                    Conditions conditions) {

    /** Every cell that failed instead of producing figures, in the order the workloads ran. */
    List<CellFailure> failures() {
        Stream<CellFailure> contendedFailures = Stream.of(contended, contendedPerThread).filter(Objects::nonNull)
                .flatMap(result -> result.failures().values().stream());
        Stream<CellFailure> handoffFailures = handoff == null ? Stream.empty()
                : handoff.failures().values().stream().flatMap(perPairing -> perPairing.values().stream());
        return Stream.concat(contendedFailures, handoffFailures).toList();
    }

    /** Whether every workload has finished: the report is complete. */
    boolean complete() {
        return Stream.of(uncontended, family, contended, contendedPerThread, handoff, watchdog, redlock)
                .allMatch(Objects::nonNull);
    }

    /** Whether a Leasehold cell failed: that is a defect of ours, a peer's failed cell is a finding about the peer. */
    boolean leaseholdFailed() {
        return failures().stream().anyMatch(failure -> failure.contender().leasehold());
    }

    /**
     * Whether the machine was otherwise idle: benchmarks on 2 shared cores are only comparable
     * when nothing else runs.
     *
     * @param loadBefore       1-minute load average when the run started
     * @param loadAfter        1-minute load average when it ended (the run itself adds about 2)
     * @param otherCpuPercent  CPU used by processes other than this JVM and its redis-servers
     *                         during the run, in % of the whole machine
     * @param otherByWorkload  the same per workload, in the order they ran
     * @param duration         wall-clock time of the run
     */
    record Conditions(double loadBefore, double loadAfter, double otherCpuPercent, Map<String, Double> otherByWorkload,
                      Duration duration) {

        /** Other processes used under 5 % of the machine. */
        boolean idle() {
            return otherCpuPercent < 5;
        }
    }
}
