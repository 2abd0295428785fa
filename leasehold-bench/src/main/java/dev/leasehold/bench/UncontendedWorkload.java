package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Runs {@link UncontendedBenchmark} for every contender and thread count: one discarded warm-up
 * run per contender, then rounds in which the contenders take turns in a rotating order, all on
 * the same servers. After every run it counts the keys left behind, then empties the servers.
 * A {@link CommandProbe} per contender gives the commands one acquire + release costs.
 */
final class UncontendedWorkload {

    /**
     * @param threads               thread counts to run, e.g. 1, 4, 16
     * @param rounds                interleaved rounds per contender and thread count
     * @param warmupIterations      JMH warm-up iterations inside each run (a fresh client warms up)
     * @param measurementIterations JMH measurement iterations per run
     * @param iteration             length of one JMH iteration
     * @param probeOperations       acquire + release pairs counted with {@code MONITOR}
     */
    record Settings(List<Integer> threads, int rounds, int warmupIterations, int measurementIterations,
                    Duration iteration, int probeOperations) {
    }

    /** One contender at one thread count, over all rounds; CPU is this JVM's, per operation, in µs. */
    record Cell(List<Double> opsPerSecond, List<Double> p50PerRound, List<Double> p99PerRound,
                List<Double> clientCpuMicrosPerOp, Histogram latencyNanos, KeyCensus keysLeft, long releases) {

        Spread throughput() {
            return Spread.of(opsPerSecond);
        }
    }

    /**
     * @param cells  contender to thread count to cell
     * @param probes contender to its probe (operations: acquire + release pairs on one thread)
     */
    record Result(Map<Contender, Map<Integer, Cell>> cells, Map<Contender, CommandProbe.Counted> probes) {

        /** The keys {@code contender} left after its releases, over all its thread counts and rounds. */
        KeyCensus keysLeft(Contender contender) {
            return cells.get(contender).values().stream().map(Cell::keysLeft).reduce(KeyCensus.EMPTY, KeyCensus::plus);
        }

        /** The releases {@code contender} made, over all its thread counts and rounds. */
        long releases(Contender contender) {
            return cells.get(contender).values().stream().mapToLong(Cell::releases).sum();
        }
    }

    private final List<RedisServer> servers;
    private final Settings settings;
    private final Progress progress;

    UncontendedWorkload(List<RedisServer> servers, Settings settings, Progress progress) {
        this.servers = servers;
        this.settings = settings;
        this.progress = progress;
    }

    Result run(List<Contender> contenders) {
        System.setProperty(UncontendedBenchmark.URIS,
                servers.stream().map(RedisServer::uri).collect(Collectors.joining(",")));
        int maxThreads = settings.threads().stream().max(Integer::compare).orElseThrow();
        Map<Contender, CommandProbe.Counted> probes = new EnumMap<>(Contender.class);
        for (Contender contender : contenders) {
            progress.step("uncontended warm-up: " + contender.label());
            measure(contender, maxThreads);
            probes.put(contender, probe(contender));
        }
        Map<Contender, Map<Integer, List<Measured>>> runs = new EnumMap<>(Contender.class);
        for (int round = 0; round < settings.rounds(); round++) {
            for (int threads : settings.threads()) {
                for (Contender contender : Rounds.order(contenders, round)) {
                    progress.step("uncontended round " + (round + 1) + "/" + settings.rounds() + ", "
                            + threads + " threads: " + contender.label());
                    runs.computeIfAbsent(contender, c -> new TreeMap<>())
                            .computeIfAbsent(threads, t -> new ArrayList<>())
                            .add(measure(contender, threads));
                }
            }
        }
        Map<Contender, Map<Integer, Cell>> cells = new EnumMap<>(Contender.class);
        runs.forEach((contender, byThreads) -> {
            Map<Integer, Cell> row = new TreeMap<>();
            byThreads.forEach((threads, measured) -> row.put(threads, cell(measured)));
            cells.put(contender, row);
        });
        return new Result(cells, probes);
    }

    /** One JMH run, its latencies, its client CPU per measured operation and the keys it left. */
    private record Measured(double opsPerSecond, Histogram latencyNanos, double cpuMicrosPerOp, KeyCensus keysLeft,
                            long releases) {
    }

    private Measured measure(Contender contender, int threads) {
        UncontendedBenchmark.COMPLETED.clear();
        UncontendedBenchmark.MEASURED_CPU_SECONDS.reset();
        RunResult result = runJmh(contender, threads);
        Histogram latency = new Histogram(3);
        long releases = 0;
        for (UncontendedBenchmark.ThreadResult thread : UncontendedBenchmark.COMPLETED) {
            latency.add(thread.latencyNanos());
            releases += thread.acquisitions();
        }
        KeyCensus keys = KeyCensus.EMPTY;
        for (RedisServer server : servers) {
            keys = keys.plus(KeyCensus.take(server));
            RedisStats.flush(server);
        }
        double cpuMicrosPerOp = 1e6 * UncontendedBenchmark.MEASURED_CPU_SECONDS.sum() / Math.max(1, latency.getTotalCount());
        return new Measured(result.getPrimaryResult().getScore(), latency, cpuMicrosPerOp, keys, releases);
    }

    private RunResult runJmh(Contender contender, int threads) {
        TimeValue iteration = TimeValue.milliseconds(settings.iteration().toMillis());
        Options options = new OptionsBuilder()
                .include(UncontendedBenchmark.class.getName().replace(".", "\\.") + "\\.acquireRelease")
                .param("contender", contender.name())
                .threads(threads)
                .forks(0)
                .warmupIterations(settings.warmupIterations())
                .warmupTime(iteration)
                .measurementIterations(settings.measurementIterations())
                .measurementTime(iteration)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        try {
            return new Runner(options).runSingle();
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH run of " + contender.label() + " with " + threads
                    + " threads failed", e);
        }
    }

    private CommandProbe.Counted probe(Contender contender) {
        try (LockAdapter adapter = contender.open(servers.stream().map(RedisServer::uri).toList(),
                Contender.DEFAULT_TTL)) {
            LockAdapter.Handle lock = adapter.lock(LockNames.next());
            lock.acquire().release(); // connections and scripts are ready before counting starts
            CommandProbe.Counted counts = CommandProbe.count(servers.get(0), () -> {
                for (int i = 0; i < settings.probeOperations(); i++) {
                    lock.acquire().release();
                }
                return settings.probeOperations();
            });
            servers.forEach(RedisStats::flush);
            return counts;
        }
    }

    private static Cell cell(List<Measured> rounds) {
        Histogram all = new Histogram(3);
        KeyCensus keys = KeyCensus.EMPTY;
        long releases = 0;
        List<Double> ops = new ArrayList<>();
        List<Double> p50 = new ArrayList<>();
        List<Double> p99 = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        for (Measured round : rounds) {
            all.add(round.latencyNanos());
            keys = keys.plus(round.keysLeft());
            releases += round.releases();
            ops.add(round.opsPerSecond());
            p50.add((double) round.latencyNanos().getValueAtPercentile(50));
            p99.add((double) round.latencyNanos().getValueAtPercentile(99));
            cpu.add(round.cpuMicrosPerOp());
        }
        return new Cell(ops, p50, p99, cpu, all, keys, releases);
    }
}
