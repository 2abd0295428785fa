package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The rows between separate clients alone, for work on cross-client contention and handoff: the
 * contended rows with one client per thread ({@link ContendedWorkload}, mutex against Redisson's
 * {@code RLock}, fair lock against {@code RFairLock}) and the handoff rows ({@link HandoffWorkload},
 * separate clients and two threads of one client, the same four contenders), with more rounds than
 * the full run, the contenders rotated each round and every ratio to the Redisson peer taken round
 * by round. Two floors run beside them ({@link RawPubSubAdapter}: a release that hands the lock over,
 * and one that wakes the waiter to retry, with no other client work), and every handoff row is also
 * compared with {@code RLock}, so a handoff granted by the release script (the fair lock's, the
 * direct floor's) can be read against the mutexes', which need the waiter's own round trip.
 *
 * <pre>java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.ContentionBench [--smoke] [--out FILE] [--rounds N]</pre>
 *
 * Defaults: 7 rounds (a 3 s contended window, 200 handoffs per pairing), about 5 minutes on 2 cores;
 * the report goes to {@code leasehold-bench/CONTENTION.md} and the console.
 */
public final class ContentionBench {

    /** The goals of issue 21 for the mutex between clients, against Redisson's {@code RLock}. */
    static final double P99_GOAL = 0.5;
    static final double FAIRNESS_GOAL = 0.9;
    static final double ACQUISITIONS_GOAL = 2.0;
    static final double HANDOFF_GOAL = 0.5;

    /** How long and how often each row runs. */
    record Settings(ContendedWorkload.Settings contended, HandoffWorkload.Settings handoff) {

        /** The full run's windows and handoffs, {@code rounds} times. */
        static Settings full(int rounds) {
            return new Settings(new ContendedWorkload.Settings(8, rounds, Duration.ofSeconds(2), Duration.ofSeconds(3), 400),
                    new HandoffWorkload.Settings(rounds, 200, 100, Duration.ofMillis(5), 100));
        }

        /** One very short round of each, for the smoke test. */
        static Settings smoke() {
            BenchSettings smoke = BenchSettings.smoke();
            return new Settings(smoke.contended(), smoke.handoff());
        }
    }

    /**
     * What a run measured, and under which conditions.
     *
     * @param revision   the measured commit (see {@link Machine})
     * @param loadBefore the machine's 1-minute load average when the run started
     * @param loadAfter  and when it ended
     * @param foreignCpu CPU other processes used meanwhile, % of the machine
     * @param seconds    how long the run took
     */
    record Result(ContendedWorkload.Result contended, HandoffWorkload.Result handoff, String revision,
                  double loadBefore, double loadAfter, double foreignCpu, double seconds) {
    }

    private ContentionBench() {
    }

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(List.of(args));
        int rounds = rounds(rest);
        BenchArgs parsed = BenchArgs.parse(rest.toArray(String[]::new), "ContentionBench [--rounds N]",
                Path.of("leasehold-bench", "CONTENTION.md"));
        Settings settings = parsed.smoke() ? Settings.smoke() : Settings.full(rounds);
        parsed.publish(markdown(run(settings, new Progress(System.out)), settings));
    }

    /**
     * Removes {@code --rounds N} from {@code args} and returns N, or 7 when absent.
     *
     * @throws IllegalArgumentException if N is missing or not a positive number
     */
    static int rounds(List<String> args) {
        String value = BenchArgs.take(args, "--rounds", "--rounds needs a positive number of rounds, got ''");
        if (value == null) {
            return 7;
        }
        int rounds;
        try {
            rounds = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            rounds = 0;
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds needs a positive number of rounds, got '" + value + "'");
        }
        return rounds;
    }

    /** Starts one redis-server, measures both rows on it, stops it. */
    static Result run(Settings settings, Progress progress) {
        double loadBefore = ProcessCpu.loadAverage();
        long start = System.nanoTime();
        List<RedisServer> servers = new ArrayList<>();
        try (RedisServer server = RedisServer.builder().start()) {
            servers.add(server);
            String revision = Machine.describe(RedisStats.version(server)).revision();
            ForeignCpu foreign = ForeignCpu.start(servers);
            ContendedWorkload.Result contended = new ContendedWorkload(server, settings.contended(), progress,
                    ContendedWorkload.Clients.CLIENT_PER_THREAD).run(Contender.WITH_PUBSUB_FLOORS);
            HandoffWorkload.Result handoff = new HandoffWorkload(server, settings.handoff(), progress)
                    .run(Contender.WITH_PUBSUB_FLOORS);
            return new Result(contended, handoff, revision, loadBefore, ProcessCpu.loadAverage(), foreign.percent(),
                    (System.nanoTime() - start) / 1e9);
        }
    }

    /** The report: both tables, each ratio a median of per-round ratios with its spread, and the goals. */
    static String markdown(Result result, Settings settings) {
        StringBuilder md = new StringBuilder("# Contention between clients: Leasehold against Redisson\n\n");
        md.append("`ContentionBench`, revision `").append(result.revision()).append("`, ")
                .append(String.format(Locale.ROOT, "%.0f s", result.seconds())).append(". Machine: ")
                .append(Runtime.getRuntime().availableProcessors()).append(" CPUs, 1-minute load ")
                .append(Fmt.two(result.loadBefore())).append(" before and ").append(Fmt.two(result.loadAfter()))
                .append(" after; other processes used ").append(Fmt.one(result.foreignCpu())).append(" % of the machine meanwhile. ")
                .append("Ratios are medians of per-round ratios [lowest–highest round]. The pub/sub floors are "
                        + "locks with no client work beyond the round trips (no token, no watchdog, no registration "
                        + "expiry): a release that hands the lock to the oldest waiter and publishes its id, and one "
                        + "that frees the lock and wakes that waiter to try again; their × peer is against RLock.\n\n");
        contended(result.contended(), settings.contended(), md);
        handoff(result.handoff(), settings.handoff(), md);
        goals(result, md);
        return md.toString();
    }

    private static void contended(ContendedWorkload.Result result, ContendedWorkload.Settings settings, StringBuilder md) {
        md.append("## Contended: ").append(settings.threads()).append(" threads on one name, one client per thread\n\n")
                .append(settings.rounds()).append(" windows of ").append(settings.window().toMillis())
                .append(" ms per contender after a discarded ").append(settings.warmup().toMillis())
                .append(" ms one. Fairness: the fewest acquisitions any thread got over the mean.\n\n")
                .append("| contender | acquisitions/s | × peer | p99 wait, ms | p99 × peer | fairness "
                        + "| commands per acquisition |\n| --- | --- | --- | --- | --- | --- | --- |\n");
        result.cells().forEach((contender, cell) -> {
            ContendedWorkload.Cell peer = result.cells().get(contender.peer());
            md.append("| ").append(contender.label())
                    .append(" | ").append(Fmt.spread(Spread.of(cell.acquisitionsPerSecond()), Fmt::count))
                    .append(" | ").append(ratio(cell, peer, ContendedWorkload.Cell::acquisitionsPerSecond))
                    .append(" | ").append(Fmt.spread(Spread.of(cell.p99PerRound()), Fmt::ms))
                    .append(" | ").append(ratio(cell, peer, ContendedWorkload.Cell::p99PerRound))
                    .append(" | ").append(Fmt.spread(Spread.of(cell.fairness()), Fmt::two))
                    .append(" | ").append(commands(result.probes().get(contender))).append(" |\n");
        });
        result.failures().forEach((contender, failure) -> md.append("| ").append(contender.label()).append(" | ")
                .append(failure.report()).append(" | | | | | |\n"));
        md.append('\n');
    }

    private static void handoff(HandoffWorkload.Result result, HandoffWorkload.Settings settings, StringBuilder md) {
        md.append("## Handoff: release call to the blocked waiter's grant\n\n").append(settings.rounds())
                .append(" rounds of ").append(settings.handoffsPerRound()).append(" handoffs per contender and pairing after ")
                .append(settings.warmupHandoffs()).append(" discarded; the waiter has been blocked for ")
                .append(settings.hold().toMillis()).append(" ms.\n\n")
                .append("| pairing | contender | p50, ms | p99, ms | p50 × peer | p50 × Redisson RLock "
                        + "| commands per handoff |\n| --- | --- | --- | --- | --- | --- | --- |\n");
        result.cells().forEach((pairing, cells) -> {
            cells.forEach((contender, cell) -> md.append("| ").append(pairing.label).append(" | ")
                    .append(contender.label())
                    .append(" | ").append(Fmt.spread(Spread.of(cell.p50PerRound()), Fmt::ms))
                    .append(" | ").append(Fmt.spread(Spread.of(cell.p99PerRound()), Fmt::ms))
                    .append(" | ").append(ratio(cell, cells.get(contender.peer()), HandoffWorkload.Cell::p50PerRound))
                    .append(" | ").append(ratio(cell, cells.get(Contender.REDISSON), HandoffWorkload.Cell::p50PerRound))
                    .append(" | ").append(commands(result.probes().get(pairing).get(contender))).append(" |\n"));
            result.failures().get(pairing).forEach((contender, failure) -> md.append("| ").append(pairing.label)
                    .append(" | ").append(contender.label()).append(" | ").append(failure.report())
                    .append(" | | | | |\n"));
        });
        md.append('\n');
    }

    /** Issue 21's goals for the mutex, each with the figure this run measured. */
    private static void goals(Result result, StringBuilder md) {
        md.append("## Goals of issue 21 (Leasehold mutex against Redisson RLock)\n\n");
        Map<Contender, ContendedWorkload.Cell> contended = result.contended().cells();
        ContendedWorkload.Cell own = contended.get(Contender.LEASEHOLD);
        ContendedWorkload.Cell peer = contended.get(Contender.REDISSON);
        if (own != null && peer != null) {
            goal(md, "contended p99 wait × RLock", medianRatio(own, peer, ContendedWorkload.Cell::p99PerRound), P99_GOAL, false);
            goal(md, "contended fairness", Spread.of(own.fairness()).median(), FAIRNESS_GOAL, true);
            goal(md, "contended acquisitions × RLock",
                    medianRatio(own, peer, ContendedWorkload.Cell::acquisitionsPerSecond), ACQUISITIONS_GOAL, true);
        }
        Map<Contender, HandoffWorkload.Cell> separate = result.handoff().cells().get(HandoffWorkload.Pairing.SEPARATE_CLIENTS);
        if (separate != null && separate.containsKey(Contender.LEASEHOLD) && separate.containsKey(Contender.REDISSON)) {
            goal(md, "handoff between separate clients, p50 × RLock", medianRatio(separate.get(Contender.LEASEHOLD),
                    separate.get(Contender.REDISSON), HandoffWorkload.Cell::p50PerRound), HANDOFF_GOAL, false);
        }
        md.append('\n');
    }

    private static void goal(StringBuilder md, String what, double measured, double goal, boolean atLeast) {
        boolean met = atLeast ? measured >= goal : measured <= goal;
        md.append("- ").append(what).append(": ").append(Fmt.two(measured)).append(" (goal ")
                .append(atLeast ? "≥ " : "≤ ").append(Fmt.two(goal)).append("): ").append(met ? "met" : "not met")
                .append('\n');
    }

    /** {@code cell}'s figure over {@code peer}'s round by round, or n/a when the peer's cell failed. */
    private static <C> String ratio(C cell, C peer, Function<C, List<Double>> figure) {
        return peer == null ? "n/a" : Fmt.spread(Spread.ratios(figure.apply(cell), figure.apply(peer)), Fmt::ratio);
    }

    private static <C> double medianRatio(C cell, C peer, Function<C, List<Double>> figure) {
        return Spread.ratios(figure.apply(cell), figure.apply(peer)).median();
    }

    private static String commands(CommandProbe.Counted probe) {
        if (probe == null) {
            return "n/a";
        }
        return Fmt.one(probe.perOperation()) + " sent, " + Fmt.one(probe.serverPerOperation()) + " run by the server";
    }
}
