package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The watchdog row alone, for work on renewal cost: {@link WatchdogWorkload} with the full run's
 * 10,000 leases and 3 s ttl, several rounds with the contenders' order rotated each round, and the
 * ratios to Redisson's {@code RLock} taken round by round (the full run measures one round).
 *
 * <pre>java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.WatchdogBench [ROUNDS [WINDOW_SECONDS [CONTENDER,... [LEASES]]]]</pre>
 *
 * Defaults: 3 rounds of a 15 s window (after the full run's 6 s warm-up), Leasehold and Redisson
 * RLock, the full run's 10,000 leases (more are taken by 8 threads). Prints one line per contender
 * and round, and the median ratios at the end. {@link ScaleBench} runs it with 100,000 leases.
 */
public final class WatchdogBench {

    private WatchdogBench() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        Duration window = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 15);
        List<Contender> contenders = args.length > 2
                ? Arrays.stream(args[2].split(",")).map(Contender::valueOf).toList()
                : Contender.WATCHDOG_ROW;
        WatchdogWorkload.Settings full = BenchSettings.full().watchdog();
        int leases = args.length > 3 ? Integer.parseInt(args[3]) : full.leases();
        WatchdogWorkload.Settings settings = new WatchdogWorkload.Settings(full.leases(), full.ttl(), full.warmup(),
                window, full.sample()).withLeases(leases, leases > full.leases() ? 8 : 1);
        Progress progress = new Progress(System.out);
        Map<Contender, List<WatchdogWorkload.Cell>> cells = new EnumMap<>(Contender.class);
        try (RedisServer server = RedisServer.builder().start()) {
            List<Contender> order = new ArrayList<>(contenders);
            for (int round = 0; round < rounds; round++) {
                WatchdogWorkload.Result result = new WatchdogWorkload(server, settings, progress).run(order);
                result.cells().forEach((contender, cell) -> {
                    cells.computeIfAbsent(contender, c -> new ArrayList<>()).add(cell);
                    System.out.println(line(contender, cell));
                });
                Collections.rotate(order, 1);
            }
        }
        List<WatchdogWorkload.Cell> peer = cells.get(Contender.REDISSON);
        cells.forEach((contender, own) -> {
            if (contender != Contender.REDISSON && peer != null) {
                System.out.printf("%s / Redisson RLock, medians of per-round ratios: client CPU %s, server CPU %s, "
                                + "server µs in scripts per renewal %s%n", contender.label(),
                        ratio(own, peer, cell -> Spread.of(cell.clientCpuPercent()).median()),
                        ratio(own, peer, WatchdogWorkload.Cell::serverCpuPercent),
                        ratio(own, peer, WatchdogWorkload.Cell::scriptMicrosPerRenewal));
            }
        });
    }

    private static String line(Contender contender, WatchdogWorkload.Cell cell) {
        return String.format("%-16s client CPU %5.1f %% (median of samples), server CPU %4.1f %%, "
                        + "script µs/renewal %.2f, allocated/renewal %s B, calls/s %s, server commands/s %s, "
                        + "alive %d, expired %d, by thread: %s",
                contender.label(), Spread.of(cell.clientCpuPercent()).median(), cell.serverCpuPercent(),
                cell.scriptMicrosPerRenewal(), Fmt.count(cell.allocatedPerRenewal()),
                Fmt.count(Spread.of(cell.scriptCallsPerSecond()).median()),
                Fmt.count(Spread.of(cell.allCallsPerSecond()).median()),
                cell.leasesAliveAtEnd(), cell.hold().expiredKeys(), cell.cpuByThreadGroup().entrySet().stream().limit(4)
                        .map(e -> e.getKey() + " " + Fmt.one(e.getValue())).collect(Collectors.joining(", ")));
    }

    private static String ratio(List<WatchdogWorkload.Cell> own, List<WatchdogWorkload.Cell> peer,
                                java.util.function.ToDoubleFunction<WatchdogWorkload.Cell> figure) {
        List<Double> numerators = own.stream().mapToDouble(figure).boxed().toList();
        List<Double> denominators = peer.stream().mapToDouble(figure).boxed().toList();
        return Fmt.spread(Spread.ratios(numerators, denominators), Fmt::ratio);
    }
}
