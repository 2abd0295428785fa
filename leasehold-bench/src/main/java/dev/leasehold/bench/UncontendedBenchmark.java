package dev.leasehold.bench;

import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * Uncontended acquire + release: every JMH thread locks a name of its own, so the figure is the
 * cost of one lock and unlock, round trips included. JMH measures the throughput; each thread
 * also records the latency of every operation in its measurement iterations, and hands its
 * histogram to {@link #COMPLETED} at the end of the trial, and the JVM's CPU time in measurement
 * iterations is added to {@link #MEASURED_CPU_SECONDS}: on 2 shared cores the client's CPU per
 * operation decides how far throughput scales. That hand-over needs the benchmark to
 * run inside the runner's JVM ({@code forks(0)}), which {@link UncontendedWorkload} also uses so
 * that every contender runs on one warmed-up JVM against the same server.
 *
 * <p>The servers are given by the system property {@value #URIS} (comma-separated).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class UncontendedBenchmark {

    /** System property naming the servers, comma-separated. */
    public static final String URIS = "leasehold.bench.uris";

    /** What each finished thread measured; drained by {@link UncontendedWorkload} after each run. */
    static final ConcurrentLinkedQueue<ThreadResult> COMPLETED = new ConcurrentLinkedQueue<>();

    /** CPU seconds this JVM used during measurement iterations; reset by {@link UncontendedWorkload} before each run. */
    static final DoubleAdder MEASURED_CPU_SECONDS = new DoubleAdder();

    /** One thread's latencies (ns) in measurement iterations (one per operation), and all its acquisitions. */
    record ThreadResult(Histogram latencyNanos, long acquisitions) {
    }

    /** A {@link Contender} constant name. */
    @Param({"LEASEHOLD"})
    public String contender;

    LockAdapter adapter;
    private boolean measuring;
    private double iterationCpuStart;

    @Setup(Level.Trial)
    public void open() {
        adapter = Contender.valueOf(contender).open(List.of(System.getProperty(URIS).split(",")), Contender.DEFAULT_TTL);
    }

    @TearDown(Level.Trial)
    public void close() {
        adapter.close();
    }

    /** Runs before any thread starts the iteration. */
    @Setup(Level.Iteration)
    public void startIteration(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
        iterationCpuStart = ProcessCpu.seconds();
    }

    /** Runs after every thread finished the iteration. */
    @TearDown(Level.Iteration)
    public void endIteration() {
        if (measuring) {
            MEASURED_CPU_SECONDS.add(ProcessCpu.seconds() - iterationCpuStart);
        }
    }

    /** One benchmark thread: its own lock name, its own protected counter, its own histogram. */
    @State(Scope.Thread)
    public static class Worker {

        LockAdapter.Handle lock;
        final CriticalSection section = new CriticalSection();
        final Histogram latencyNanos = new Histogram(3);
        long acquisitions;
        boolean measuring;

        @Setup(Level.Trial)
        public void open(UncontendedBenchmark benchmark) {
            lock = benchmark.adapter.lock(LockNames.next());
        }

        @Setup(Level.Iteration)
        public void iteration(IterationParams params) {
            measuring = params.getType() == IterationType.MEASUREMENT;
        }

        @TearDown(Level.Trial)
        public void close() {
            section.verify(acquisitions);
            COMPLETED.add(new ThreadResult(latencyNanos, acquisitions));
        }
    }

    @Benchmark
    public void acquireRelease(Worker worker) {
        long start = System.nanoTime();
        LockAdapter.Held held = worker.lock.acquire();
        worker.acquisitions++;
        worker.section.enter(held.token());
        held.release();
        if (worker.measuring) {
            worker.latencyNanos.recordValue(System.nanoTime() - start);
        }
    }
}
