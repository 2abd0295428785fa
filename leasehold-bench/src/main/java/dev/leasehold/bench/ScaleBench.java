package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Leasehold at scale against Redisson's {@code RLock}, on one redis-server the run starts itself:
 *
 * <ul>
 *   <li><b>leases</b>: 100,000 watchdog leases held on one client ({@link WatchdogWorkload}, with
 *       Redisson given the same {@code lockWatchdogTimeout}): heap per lease, the client's and the
 *       server's CPU for the renewals, script time per renewal, and that every lease stayed valid;</li>
 *   <li><b>names</b>: a million fresh lock names, locked and released as fast as one client goes for up
 *       to a minute ({@link FreshNamesWorkload}): the keys left on the server over time, with a short
 *       fence retention (so they are seen to expire) and with the default 10 minutes, and the client's
 *       heap and per-name counters from start to end.</li>
 * </ul>
 *
 * <pre>
 * java -Xms1g -Xmx1g -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.ScaleBench [--smoke] [--out FILE] [--only leases|names]
 * </pre>
 *
 * Writes {@code leasehold-bench/SCALE.md}. With {@code --only}, only that part runs, and its section
 * replaces the same section of an existing report (the other is kept), so each part can run on its
 * own, a few minutes at a time.
 */
public final class ScaleBench {

    /** The parts, in the report's order. */
    enum Part {
        LEASES, NAMES
    }

    /**
     * How hard each part runs.
     *
     * @param leases         the watchdog part's settings (leases, ttl, warm-up, window)
     * @param rounds         rounds of the watchdog part, the contenders' order rotated each round
     * @param names          the fresh-names part's settings
     * @param shortRetention the fence retention of the Leasehold peer whose keys are seen to expire
     * @param drain          how long the names part waits for a peer's keys to expire after its load
     */
    record Settings(String name, WatchdogWorkload.Settings leases, int rounds, FreshNamesWorkload.Settings names,
                    Duration shortRetention, Duration drain) {

        static Settings full() {
            return new Settings("full",
                    new WatchdogWorkload.Settings(100_000, Contender.DEFAULT_TTL, Duration.ofSeconds(10),
                            Duration.ofSeconds(30), Duration.ofSeconds(1), 8, true),
                    2,
                    new FreshNamesWorkload.Settings(1_000_000, Duration.ofSeconds(60), 16, Duration.ofSeconds(5),
                            Duration.ofSeconds(1)),
                    Duration.ofSeconds(5), Duration.ofSeconds(40));
        }

        static Settings smoke() {
            return new Settings("smoke",
                    // A window twice the ttl: only renewal keeps the leases; a ttl that a loaded machine's stalls
                    // do not exceed.
                    new WatchdogWorkload.Settings(300, Duration.ofSeconds(2), Duration.ofMillis(300),
                            Duration.ofSeconds(4), Duration.ofMillis(500), 3, true),
                    1,
                    new FreshNamesWorkload.Settings(3_000, Duration.ofSeconds(3), 4, Duration.ofMillis(300),
                            Duration.ofMillis(250)),
                    Duration.ofSeconds(1), Duration.ofSeconds(8));
        }
    }

    /** The leases part: each contender's cell per round, in round order. */
    record Leases(Map<Contender, List<WatchdogWorkload.Cell>> rounds, double idleClientCpuPercent,
                  double foreignCpuPercent) {
    }

    /** The names part: one cell per peer. */
    record Names(List<FreshNamesWorkload.Cell> cells, double foreignCpuPercent) {
    }

    static final String LEASEHOLD_SHORT = "Leasehold, fence retention ";
    static final String LEASEHOLD_DEFAULT = "Leasehold, default fence retention (10 min)";
    static final String REDISSON = "Redisson RLock";

    private ScaleBench() {
    }

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        List<Part> parts = List.of(Part.values());
        String only = BenchArgs.take(rest, "--only", "--only needs a part: leases or names");
        if (only != null) {
            parts = List.of(part(only));
        }
        BenchArgs parsed = BenchArgs.parse(rest.toArray(String[]::new), "ScaleBench [--only leases|names]",
                Path.of("leasehold-bench", "SCALE.md"));
        Settings settings = parsed.smoke() ? Settings.smoke() : Settings.full();
        Progress progress = new Progress(System.out);
        String existing = Files.exists(parsed.out()) ? Files.readString(parsed.out()) : "";
        try (RedisServer server = RedisServer.builder().start()) {
            Machine machine = Machine.describe(RedisStats.version(server));
            String report = existing;
            for (Part part : parts) {
                String load = MachineLoad.now();
                Instant started = Instant.now();
                String section = switch (part) {
                    case LEASES -> ScaleReport.leases(leases(server, settings, progress), settings);
                    case NAMES -> ScaleReport.names(names(server, settings, progress), settings);
                };
                report = ScaleReport.merge(report, part, ScaleReport.conditions(machine, settings, load,
                        Duration.between(started, Instant.now())) + section);
            }
            parsed.publish(report);
        }
    }

    private static Part part(String name) {
        try {
            return Part.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown part '" + name + "'; --only takes leases or names", e);
        }
    }

    /** The leases part: {@link WatchdogWorkload} over Leasehold and Redisson, rounds rotated. */
    static Leases leases(RedisServer server, Settings settings, Progress progress) {
        ForeignCpu foreign = ForeignCpu.start(List.of(server));
        Map<Contender, List<WatchdogWorkload.Cell>> cells = new EnumMap<>(Contender.class);
        List<Contender> order = new ArrayList<>(Contender.WATCHDOG_ROW);
        double idle = 0;
        for (int round = 0; round < settings.rounds(); round++) {
            WatchdogWorkload.Result result = new WatchdogWorkload(server, settings.leases(), progress).run(order);
            result.cells().forEach((contender, cell) -> cells.computeIfAbsent(contender, c -> new ArrayList<>()).add(cell));
            idle = result.idleClientCpuPercent();
            Collections.rotate(order, 1);
        }
        return new Leases(cells, idle, foreign.percent());
    }

    /**
     * The names part: Leasehold with a short fence retention (its keys expire while the report
     * watches), Redisson's {@code RLock}, and Leasehold with the default retention (keys counted, not
     * waited for).
     */
    static Names names(RedisServer server, Settings settings, Progress progress) {
        ForeignCpu foreign = ForeignCpu.start(List.of(server));
        Duration ttl = Contender.DEFAULT_TTL;
        List<FreshNamesWorkload.Peer> peers = List.of(
                new FreshNamesWorkload.Peer(LEASEHOLD_SHORT + settings.shortRetention().toSeconds() + " s",
                        () -> new LeaseholdAdapter(RedisLocks.builder().uri(server.uri())
                                .fenceRetention(settings.shortRetention()).connect(), ttl, "Leasehold"),
                        settings.drain()),
                new FreshNamesWorkload.Peer(REDISSON, () -> RedissonAdapter.connect(server.uri(), ttl), settings.drain()),
                new FreshNamesWorkload.Peer(LEASEHOLD_DEFAULT,
                        () -> LeaseholdAdapter.connect(server.uri(), ttl), Duration.ZERO));
        List<FreshNamesWorkload.Cell> cells = new FreshNamesWorkload(server, settings.names(), progress).run(peers);
        return new Names(cells, foreign.percent());
    }
}
