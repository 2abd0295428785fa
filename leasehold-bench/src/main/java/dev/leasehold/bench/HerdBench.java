package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The herd row: what one release costs against the number of waiters. Herds of 1, 10, 100 and
 * 1,000 waiters on one lock name, spread over 10 clients per contender, Leasehold's mutex and fair
 * lock against Redisson's {@code RLock} and {@code RFairLock}, on one redis-server in one run
 * (every contender's clients open throughout; rounds interleaved, the order rotated every cell).
 * Per grant (each grant is a handoff after one release): commands the clients sent, acquire
 * attempts, pub/sub messages delivered, the waiter threads' waits, handoff latency; see
 * {@link HerdWorkload} and {@link Herd} for how each is measured.
 *
 * <pre>
 * java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.HerdBench [--smoke] [--out FILE]
 *     [--contenders LEASEHOLD,REDISSON,...] [--herds 1,10,...] [--rounds N]
 * </pre>
 *
 * Writes {@code leasehold-bench/HERD.md} by default. The exit code is 1 if a Leasehold cell failed.
 */
public final class HerdBench {

    /** The contenders of the row: the mutexes, then the fair locks. */
    static final List<Contender> CONTENDERS = List.of(Contender.LEASEHOLD, Contender.REDISSON,
            Contender.LEASEHOLD_FAIR, Contender.REDISSON_FAIR);

    /**
     * A run's figures.
     *
     * @param settings     what was run
     * @param contenders   in the order of the tables
     * @param calibrations per contender
     * @param cells        per contender and herd size, one per round
     * @param failures     contenders whose cell threw; they sat out the rest of the run
     * @param took         the run's length
     * @param conditions   the machine's load, for the report
     */
    record Result(HerdWorkload.Settings settings, List<Contender> contenders,
                  Map<Contender, HerdWorkload.Calibration> calibrations,
                  Map<Contender, Map<Integer, List<HerdWorkload.Cell>>> cells, Map<Contender, CellFailure> failures,
                  Duration took, String conditions) {
    }

    /**
     * One point of the chart "wake-ups against waiters": a contender's medians at one herd size.
     *
     * @param contender              the row label
     * @param waiters                the herd size
     * @param clientCommandsPerGrant commands the clients sent per grant
     * @param attemptsPerGrant       acquire-script calls per grant
     * @param deliveriesPerGrant     pub/sub messages delivered per grant
     * @param extraWaitsPerGrant     waiter-thread waits per grant beyond an uncontended lock+release's
     * @param handoffP50Millis       release call to the next grant, median
     * @param handoffP99Millis       the same, 99th percentile
     * @param grantsPerSecond        grants per second
     */
    record Point(String contender, int waiters, double clientCommandsPerGrant, double attemptsPerGrant,
                 double deliveriesPerGrant, double extraWaitsPerGrant, double handoffP50Millis,
                 double handoffP99Millis, double grantsPerSecond) {
    }

    private HerdBench() {
    }

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(List.of(args));
        String contenders = option(rest, "--contenders");
        String herds = option(rest, "--herds");
        String rounds = option(rest, "--rounds");
        BenchArgs parsed = BenchArgs.parse(rest.toArray(String[]::new), "HerdBench", Path.of("leasehold-bench", "HERD.md"));
        HerdWorkload.Settings base = parsed.smoke() ? HerdWorkload.Settings.smoke() : HerdWorkload.Settings.full();
        HerdWorkload.Settings settings = new HerdWorkload.Settings(
                herds == null ? base.herds() : Arrays.stream(herds.split(",")).map(Integer::valueOf).toList(),
                base.clients(), rounds == null ? base.rounds() : Integer.parseInt(rounds), base.warmUp(),
                base.window(), base.probeWindow());
        List<Contender> chosen = contenders == null ? CONTENDERS
                : Arrays.stream(contenders.split(",")).map(Contender::valueOf).toList();
        Result result = run(settings, chosen, new Progress(System.out));
        Map<String, String> images = ReportCharts.write(parsed.out(), HerdCharts.of(result, PeerCharts.provenance()));
        parsed.publish(markdown(result, images));
        if (result.failures().keySet().stream().anyMatch(Contender::leasehold)) {
            System.exit(1);
        }
    }

    /**
     * Removes {@code name VALUE} from {@code args} and returns the value, or null when absent.
     *
     * @throws IllegalArgumentException if the value is missing
     */
    static String option(List<String> args, String name) {
        return BenchArgs.take(args, name, name + " needs a value, e.g. " + name + " "
                + (name.equals("--contenders") ? "LEASEHOLD,REDISSON" : "10"));
    }

    /** Starts a redis-server, measures every cell, stops the server. */
    static Result run(HerdWorkload.Settings settings, List<Contender> contenders, Progress progress) {
        Instant started = Instant.now();
        double loadBefore = ProcessCpu.loadAverage();
        Map<Contender, HerdWorkload.Calibration> calibrations = new EnumMap<>(Contender.class);
        Map<Contender, Map<Integer, List<HerdWorkload.Cell>>> cells = new EnumMap<>(Contender.class);
        Map<Contender, CellFailure> failures = new EnumMap<>(Contender.class);
        Map<Contender, List<LockAdapter>> clients = new EnumMap<>(Contender.class);
        try (RedisServer server = RedisServer.builder().start()) {
            ForeignCpu foreign = ForeignCpu.start(List.of(server));
            try {
                for (Contender contender : contenders) {
                    progress.step("herd: opening " + settings.clients() + " clients and warming up " + contender.label());
                    try {
                        clients.put(contender, open(contender, server, settings.clients()));
                        calibrations.put(contender, HerdWorkload.calibrate(server, clients.get(contender).get(0)));
                        HerdWorkload.measure(server, clients.get(contender), settings.herds().get(0), settings,
                                calibrations.get(contender));
                    } catch (RuntimeException e) {
                        fail(contender, e, failures, clients, progress);
                    }
                }
                int cell = 0;
                for (int round = 0; round < settings.rounds(); round++) {
                    for (int waiters : settings.herds()) {
                        for (Contender contender : Rounds.order(contenders, cell++)) {
                            if (failures.containsKey(contender)) {
                                continue;
                            }
                            progress.step("herd round " + (round + 1) + "/" + settings.rounds() + ", " + waiters
                                    + " waiters: " + contender.label());
                            try {
                                HerdWorkload.Cell measured = HerdWorkload.measure(server, clients.get(contender), waiters,
                                        settings, calibrations.get(contender));
                                cells.computeIfAbsent(contender, c -> new TreeMap<>())
                                        .computeIfAbsent(waiters, w -> new ArrayList<>()).add(measured);
                                progress.step("  " + line(measured));
                            } catch (RuntimeException e) {
                                fail(contender, e, failures, clients, progress);
                            }
                        }
                    }
                }
            } finally {
                clients.values().forEach(list -> list.forEach(LockAdapter::close));
            }
            String conditions = "other processes used " + Fmt.one(foreign.percent()) + " % of the machine's CPU during "
                    + "the run; 1-minute load average " + Fmt.two(loadBefore) + " before, "
                    + Fmt.two(ProcessCpu.loadAverage()) + " after (" + MachineLoad.now() + ")";
            return new Result(settings, contenders, calibrations, cells, failures,
                    Duration.between(started, Instant.now()), conditions);
        }
    }

    private static List<LockAdapter> open(Contender contender, RedisServer server, int count) {
        List<LockAdapter> opened = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                opened.add(contender.open(List.of(server.uri()), Contender.DEFAULT_TTL));
            }
            return opened;
        } catch (RuntimeException e) {
            opened.forEach(LockAdapter::close);
            throw e;
        }
    }

    private static void fail(Contender contender, RuntimeException error, Map<Contender, CellFailure> failures,
                             Map<Contender, List<LockAdapter>> clients, Progress progress) {
        CellFailure failure = CellFailure.of(contender, error);
        failures.put(contender, failure);
        progress.step("herd " + contender.label() + " " + failure.report());
        List<LockAdapter> opened = clients.remove(contender);
        if (opened != null) {
            opened.forEach(LockAdapter::close);
        }
    }

    private static String line(HerdWorkload.Cell cell) {
        return String.format(java.util.Locale.ROOT, "%d waiters: %.0f grants/s, per grant %.2f client commands "
                        + "(%.2f attempts), %.2f deliveries, %.2f waits; handoff p50 %s ms, p99 %s ms",
                cell.waiters(), cell.grantsPerSecond(), cell.clientCommandsPerGrant(), cell.attemptsPerGrant(),
                cell.deliveriesPerGrant(), cell.waitsPerGrant(), Fmt.ms(cell.handoffNanos().getValueAtPercentile(50)),
                Fmt.ms(cell.handoffNanos().getValueAtPercentile(99)));
    }

    /** The medians per contender and herd size, for a chart of wake-ups against waiters. */
    static List<Point> points(Result result) {
        List<Point> points = new ArrayList<>();
        for (Contender contender : result.contenders()) {
            Map<Integer, List<HerdWorkload.Cell>> byHerd = result.cells().get(contender);
            if (byHerd == null || result.failures().containsKey(contender)) {
                continue;
            }
            double floor = result.calibrations().get(contender).waitsPerCycle();
            byHerd.forEach((waiters, cells) -> points.add(new Point(contender.label(), waiters,
                    median(cells, HerdWorkload.Cell::clientCommandsPerGrant),
                    median(cells, HerdWorkload.Cell::attemptsPerGrant),
                    median(cells, HerdWorkload.Cell::deliveriesPerGrant),
                    median(cells, cell -> cell.waitsPerGrant() - floor),
                    median(cells, cell -> cell.handoffNanos().getValueAtPercentile(50) / 1e6),
                    median(cells, cell -> cell.handoffNanos().getValueAtPercentile(99) / 1e6),
                    median(cells, HerdWorkload.Cell::grantsPerSecond))));
        }
        return points;
    }

    private static double median(List<HerdWorkload.Cell> cells, ToDoubleFunction<HerdWorkload.Cell> figure) {
        return Spread.of(cells.stream().mapToDouble(figure).boxed().toList()).median();
    }

    private static String spread(List<HerdWorkload.Cell> cells, ToDoubleFunction<HerdWorkload.Cell> figure) {
        return Fmt.spread(Spread.of(cells.stream().mapToDouble(figure).boxed().toList()), Fmt::two);
    }

    /** The report without charts. */
    static String markdown(Result result) {
        return markdown(result, Map.of());
    }

    /** The report, its table followed by the charts in {@code images} (from {@link ReportCharts#write}). */
    static String markdown(Result result, Map<String, String> images) {
        HerdWorkload.Settings settings = result.settings();
        StringBuilder md = new StringBuilder("# Herd: what one release costs against the number of waiters\n\n");
        md.append("Produced by `java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.HerdBench` on one "
                        + "redis-server ").append("(started by the testkit on loopback, no persistence), in ")
                .append(result.took().toSeconds()).append(" s. ").append(result.conditions()).append(". ");
        md.append("Leasehold revision ").append(Machine.describe("n/a").revision()).append(".\n\n");
        if (!result.failures().isEmpty()) {
            md.append("**Failed cells**: ");
            result.failures().values().forEach(failure -> md.append(failure.contender().label()).append(' ')
                    .append(failure.report()).append("; "));
            md.append("a failed contender sat out the rest of the run.\n\n");
        }
        md.append("A herd of W waiters is W + 1 threads on one lock name, thread i on client i mod ")
                .append(settings.clients()).append(" (").append(settings.clients())
                .append(" clients per contender, all open for the whole run), each looping acquire, release; the holder "
                        + "releases only once the W others are inside acquire, and a thread that released calls acquire "
                        + "again only after the next grant, so every release finds exactly W waiters and every grant is "
                        + "a handoff. Leasehold with its watchdog (ttl 30 s), Redisson `lock()` with its watchdog "
                        + "(`lockWatchdogTimeout` 30 s), defaults otherwise. ")
                .append(settings.rounds()).append(" rounds; in each, every herd size and every contender, the order "
                        + "rotated cell by cell; a cell runs ").append(settings.warmUp().toMillis())
                .append(" ms of warm-up, a timed window of ").append(settings.window().toMillis())
                .append(" ms, then a window of ").append(settings.probeWindow().toMillis())
                .append(" ms under `MONITOR`. Figures are medians of the rounds with the lowest and highest round in "
                        + "brackets. Every cell checks a plain counter under the lock against the grants (and "
                        + "Leasehold's fencing tokens for order).\n\n");
        md.append("Per grant (one release and one handoff):\n\n"
                + "- **client commands**: commands the clients sent (`MONITOR`, script-internal ones skipped), all "
                + "clients together, `SUBSCRIBE`s and pings included;\n"
                + "- **attempts**: calls of the contender's acquire script among them (identified by an uncontended "
                + "lock+release first); an attempt beyond the one that wins is a waiter woken for nothing. "
                + "Leasehold's fair lock hands the lock over inside the release script, so a handoff costs it no "
                + "attempt at all;\n"
                + "- **deliveries**: pub/sub messages the server delivered: every `PUBLISH` (a script's too) counted "
                + "once per connection subscribed to its channel at that moment (subscriber counts from one atomic "
                + "`PUBSUB NUMSUB` snapshot, then every `SUBSCRIBE` and `UNSUBSCRIBE` in the `MONITOR` stream);\n"
                + "- **extra thread waits**: how often the herd's threads waited (`ThreadMXBean` waited count: a park "
                + "or `Object.wait`, the harness's own left out) per grant, minus what one uncontended lock+release "
                + "costs the calling thread (the floor in brackets after the contender). Every thread that is woken "
                + "and goes back to waiting adds to it: a Redisson waiter that loses adds two (its latch, then the "
                + "reply of its attempt); a Leasehold waiter is woken only with the lock;\n"
                + "- **server commands**: commands the server ran (`INFO commandstats`, script-internal ones included), "
                + "and redis-server CPU, over the timed window;\n"
                + "- **handoff**: from the holder's release call to the next grant, every grant of the timed window "
                + "(p50 / p99, ms).\n\n");
        md.append("| contender | waiters | grants/s | client commands | attempts | deliveries | extra thread waits "
                + "| server commands | server CPU µs | handoff p50 / p99 ms |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Contender contender : result.contenders()) {
            Map<Integer, List<HerdWorkload.Cell>> byHerd = result.cells().get(contender);
            if (byHerd == null) {
                continue;
            }
            double floor = result.calibrations().get(contender).waitsPerCycle();
            byHerd.forEach((waiters, cells) -> md.append("| ").append(contender.label()).append(" (floor ")
                    .append(Fmt.two(floor)).append(") | ").append(Fmt.count(waiters)).append(" | ")
                    .append(Fmt.spread(Spread.of(cells.stream().map(HerdWorkload.Cell::grantsPerSecond).toList()), Fmt::count))
                    .append(" | ").append(spread(cells, HerdWorkload.Cell::clientCommandsPerGrant))
                    .append(" | ").append(spread(cells, HerdWorkload.Cell::attemptsPerGrant))
                    .append(" | ").append(spread(cells, HerdWorkload.Cell::deliveriesPerGrant))
                    .append(" | ").append(spread(cells, cell -> cell.waitsPerGrant() - floor))
                    .append(" | ").append(spread(cells, HerdWorkload.Cell::serverCommandsPerGrant))
                    .append(" | ").append(Fmt.spread(Spread.of(cells.stream()
                            .map(HerdWorkload.Cell::serverCpuMicrosPerGrant).toList()), Fmt::one))
                    .append(" | ").append(Fmt.ms(median(cells, cell -> cell.handoffNanos().getValueAtPercentile(50))))
                    .append(" / ").append(Fmt.ms(median(cells, cell -> cell.handoffNanos().getValueAtPercentile(99))))
                    .append(" |\n"));
        }
        md.append(ReportCharts.images(images, HerdCharts.NAMES));
        commandsByName(result, md);
        md.append("\n## Data for a chart (medians per contender and herd size)\n\n```csv\n"
                + "contender,waiters,client_commands_per_grant,attempts_per_grant,deliveries_per_grant,"
                + "extra_waits_per_grant,handoff_p50_ms,handoff_p99_ms,grants_per_second\n");
        for (Point point : points(result)) {
            md.append(String.format(java.util.Locale.ROOT, "%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f%n",
                    point.contender(), point.waiters(), point.clientCommandsPerGrant(), point.attemptsPerGrant(),
                    point.deliveriesPerGrant(), point.extraWaitsPerGrant(), point.handoffP50Millis(),
                    point.handoffP99Millis(), point.grantsPerSecond()));
        }
        md.append("```\n");
        return md.toString();
    }

    /** The client commands of the largest herd by name, per grant (the first round's probe). */
    private static void commandsByName(Result result, StringBuilder md) {
        int largest = result.settings().herds().stream().mapToInt(Integer::intValue).max().orElse(0);
        md.append("\nClient commands per grant by name, ").append(Fmt.count(largest))
                .append(" waiters (first round):\n\n| contender | commands |\n| --- | --- |\n");
        for (Contender contender : result.contenders()) {
            List<HerdWorkload.Cell> cells = result.cells().getOrDefault(contender, Map.of()).get(largest);
            if (cells == null) {
                continue;
            }
            HerdWorkload.Cell first = cells.get(0);
            Map<String, String> perGrant = new LinkedHashMap<>();
            first.probe().clientCommands().forEach((name, count) ->
                    perGrant.put(name, Fmt.two((double) count / first.probeGrants())));
            md.append("| ").append(contender.label()).append(" | ").append(perGrant.entrySet().stream()
                    .map(entry -> "`" + entry.getKey() + "` " + entry.getValue())
                    .reduce((a, b) -> a + ", " + b).orElse("none")).append(" |\n");
        }
    }
}
