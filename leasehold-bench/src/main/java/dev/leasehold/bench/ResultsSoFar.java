package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workloads of one run that have finished so far. {@link #snapshot()} can be taken after any
 * of them: the workloads not yet run are null in it, and its conditions cover the run up to then,
 * so a report written from it is a true, if partial, record of a run that may never finish.
 */
final class ResultsSoFar {

    private final BenchSettings settings;
    private final Machine machine;
    private final double loadBefore;
    private final long startNanos;
    private final ForeignCpu wholeRun;
    private final Map<String, Double> foreign = new LinkedHashMap<>();
    UncontendedWorkload.Result uncontended;
    UncontendedWorkload.Result family;
    ContendedWorkload.Result contended;
    ContendedWorkload.Result contendedPerThread;
    HandoffWorkload.Result handoff;
    WatchdogWorkload.Result watchdog;
    UncontendedWorkload.Result redlock;

    /**
     * Starts the foreign-CPU measurement over the live list {@code servers}; the run began at
     * {@code startNanos} ({@link System#nanoTime()}) with the 1-minute load average {@code loadBefore}.
     */
    ResultsSoFar(BenchSettings settings, Machine machine, List<RedisServer> servers, double loadBefore,
                 long startNanos) {
        this.settings = settings;
        this.machine = machine;
        this.loadBefore = loadBefore;
        this.startNanos = startNanos;
        this.wholeRun = ForeignCpu.start(servers);
    }

    /** Notes the other processes' CPU during the workload {@code name}, which has just finished. */
    void finished(String name, ForeignCpu phase) {
        foreign.put(name, phase.percent());
    }

    /** Everything finished so far; later workloads are null. */
    BenchResults snapshot() {
        BenchResults.Conditions conditions = new BenchResults.Conditions(loadBefore, ProcessCpu.loadAverage(),
                wholeRun.percent(), new LinkedHashMap<>(foreign), Duration.ofNanos(System.nanoTime() - startNanos));
        return new BenchResults(settings, machine, uncontended, family, contended, contendedPerThread, handoff,
                watchdog, redlock, BenchRun.REDLOCK_NODES, conditions);
    }
}
