package dev.leasehold.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Measures lock implementations side by side on the same servers, through {@link LockAdapter}:
 * uncontended lock+release at 1 and 16 threads (each thread its own name, one client), contended
 * (8 threads, one name, one client per thread) and handoff latency (from the holder's release call
 * to the waiter's grant, two clients). Each peer is warmed up once, then rounds are interleaved with
 * the order rotated every round; the median cell of the rounds is kept. Every cell checks mutual
 * exclusion with a plain counter (and, where the lock issues them, that fencing tokens only grow).
 * Used by {@link ConsensusBench} and {@link DeploymentBench}.
 */
final class PeerBench {

    /**
     * How long each cell runs. A handoff's holder keeps the lock {@code hold} plus a uniform random part
     * of {@code holdJitter}: a waiter that polls every {@code p} would otherwise meet every release at the
     * same point of its period (with a 20 ms hold and a 10 ms poll, right after it), so a jitter of at
     * least {@code p} spreads the releases over the whole period, as real releases fall.
     */
    record Settings(int rounds, Duration warmUp, Duration measure, int handoffs, Duration hold, Duration holdJitter) {
        static Settings full() {
            return new Settings(3, Duration.ofSeconds(1), Duration.ofSeconds(2), 40, Duration.ofMillis(20), Duration.ZERO);
        }

        static Settings smoke() {
            return new Settings(1, Duration.ofMillis(100), Duration.ofMillis(300), 5, Duration.ofMillis(20), Duration.ZERO);
        }
    }

    /** The rows of the table, in order. */
    enum Workload {
        UNCONTENDED_1("uncontended, 1 thread"),
        UNCONTENDED_16("uncontended, 16 threads"),
        CONTENDED_8("contended, 8 threads, one client each"),
        HANDOFF("handoff, release call to waiter's grant");

        final String label;

        Workload(String label) {
            this.label = label;
        }
    }

    /**
     * One measurement: operations per second (0 for handoff) and latency percentiles in microseconds:
     * of a whole lock+release, and of the acquire alone (call to return: the wait). {@code fairness}
     * is the fewest operations any thread made against the mean (1 for handoff); {@code operations}
     * counts the lock+release pairs (handoffs: both sides' acquisitions) the cell made;
     * {@code latencyNanos} holds the latencies themselves (of a whole lock+release, or of a handoff).
     */
    record Cell(double opsPerSecond, double p50Micros, double p99Micros, double p99WaitMicros, double fairness,
                long operations, Histogram latencyNanos) {
    }

    /**
     * One lock implementation, opened afresh (one client per call) by every workload; {@code open} is
     * told how many threads will share the client (e.g. to size its connection pool).
     */
    record Peer(String label, IntFunction<LockAdapter> open) {

        /** A peer whose clients need not know how many threads share them. */
        Peer(String label, Supplier<LockAdapter> open) {
            this(label, threads -> open.get());
        }
    }

    /**
     * A backend's peers and their cells.
     *
     * @param cells  per workload and peer, the median of the rounds' figures, with the latencies
     *               of all rounds pooled
     * @param rounds per workload and peer, every round's cell, in round order
     */
    record Table(String store, List<String> peers, Map<Workload, Map<String, Cell>> cells,
                 Map<Workload, Map<String, List<Cell>>> rounds) {

        /** The store's first word in lower case, for file names: "zookeeper", "sentinel". */
        String slug() {
            return store.split("[^A-Za-z0-9]+")[0].toLowerCase(Locale.ROOT);
        }
    }

    /** A column of the table: {@code numerator}'s figure over {@code denominator}'s, both peer labels. */
    record Ratio(String numerator, String denominator) {
    }

    private PeerBench() {
    }

    /**
     * Warms every peer up on every workload, then runs {@code settings.rounds()} rounds of every
     * workload, the peers' order rotated each round, and keeps each peer's median cell.
     *
     * @throws IllegalStateException if a cell saw mutual exclusion broken (see {@link CriticalSection})
     */
    static Table measure(String store, Settings settings, List<Peer> peers) throws Exception {
        Map<Workload, Map<String, List<Cell>>> rounds = new LinkedHashMap<>();
        for (Workload workload : Workload.values()) {
            Map<String, List<Cell>> perPeer = new LinkedHashMap<>();
            peers.forEach(peer -> perPeer.put(peer.label(), new ArrayList<>()));
            rounds.put(workload, perPeer);
        }
        Settings warmUp = new Settings(1, settings.warmUp(), settings.warmUp(), settings.handoffs(), settings.hold(),
                settings.holdJitter());
        for (Peer peer : peers) {
            for (Workload workload : Workload.values()) {
                cell(workload, peer, warmUp, warmUp.warmUp());
            }
        }
        for (int round = 0; round < settings.rounds(); round++) {
            for (Workload workload : Workload.values()) {
                for (int i = 0; i < peers.size(); i++) {
                    Peer peer = peers.get((i + round) % peers.size());
                    rounds.get(workload).get(peer.label()).add(cell(workload, peer, settings, settings.measure()));
                }
            }
        }
        Map<Workload, Map<String, Cell>> medians = new LinkedHashMap<>();
        rounds.forEach((workload, perPeer) -> {
            Map<String, Cell> cells = new LinkedHashMap<>();
            perPeer.forEach((peer, list) -> cells.put(peer, median(list)));
            medians.put(workload, cells);
        });
        return new Table(store, peers.stream().map(Peer::label).toList(), medians, rounds);
    }

    /** {@code threads} threads on one new client, each locking and releasing a name of its own. */
    private static Cell uncontended(Peer peer, int threads, Duration length) throws Exception {
        try (LockAdapter adapter = peer.open().apply(threads)) {
            return uncontended(adapter, threads, length);
        }
    }

    /** {@code threads} threads on {@code adapter}, each locking and releasing a name of its own, for {@code length}. */
    static Cell uncontended(LockAdapter adapter, int threads, Duration length) throws Exception {
        List<LockAdapter> shared = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            shared.add(adapter);
        }
        return loop(shared, t -> "u-" + t, length);
    }

    /** {@code threads} threads, each on a new client of its own, all locking one name. */
    private static Cell contended(Peer peer, int threads, Duration length) throws Exception {
        List<LockAdapter> clients = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                clients.add(peer.open().apply(1));
            }
            return contended(clients, length);
        } finally {
            clients.forEach(LockAdapter::close);
        }
    }

    /** One thread per client of {@code clients}, all locking one name, for {@code length}. */
    static Cell contended(List<LockAdapter> clients, Duration length) throws Exception {
        return loop(clients, t -> "contended", length);
    }

    /**
     * Measures one {@code workload} cell of {@code peer} for {@code length} ({@code settings} for the
     * handoffs): what {@link #measure} runs per round, for a benchmark that needs one more look at a cell
     * (e.g. counting the statements it sent).
     */
    static Cell cell(Workload workload, Peer peer, Settings settings, Duration length) throws Exception {
        return switch (workload) {
            case UNCONTENDED_1 -> uncontended(peer, 1, length);
            case UNCONTENDED_16 -> uncontended(peer, 16, length);
            case CONTENDED_8 -> contended(peer, 8, length);
            case HANDOFF -> handoff(peer, settings.handoffs(), settings.hold(), settings.holdJitter());
        };
    }

    /**
     * One thread per adapter, each acquiring and releasing its name for {@code length}; latency is of
     * a whole acquire+release, the wait of the acquire alone. Every name's plain counter must equal
     * its acquisitions.
     */
    private static Cell loop(List<LockAdapter> adapters, IntFunction<String> names,
                             Duration length) throws Exception {
        int threads = adapters.size();
        Map<String, CriticalSection> sections = new LinkedHashMap<>();
        Map<String, long[]> acquisitions = new LinkedHashMap<>();
        for (int t = 0; t < threads; t++) {
            sections.putIfAbsent(names.apply(t), new CriticalSection());
            acquisitions.putIfAbsent(names.apply(t), new long[1]);
        }
        Histogram latency = new Histogram(3);
        Histogram waits = new Histogram(3);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long end = System.nanoTime() + length.toNanos();
            long start = System.nanoTime();
            List<Future<Long>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String name = names.apply(t);
                LockAdapter.Handle handle = adapters.get(t).lock(name);
                CriticalSection section = sections.get(name);
                long[] count = acquisitions.get(name);
                done.add(pool.submit(() -> {
                    Histogram mine = new Histogram(3);
                    Histogram myWaits = new Histogram(3);
                    long ops = 0;
                    while (System.nanoTime() < end) {
                        long began = System.nanoTime();
                        LockAdapter.Held held = handle.acquire();
                        myWaits.recordValue(System.nanoTime() - began);
                        try {
                            section.enter(held.token());
                            synchronized (count) {
                                count[0]++;
                            }
                        } finally {
                            held.release();
                        }
                        mine.recordValue(System.nanoTime() - began);
                        ops++;
                    }
                    synchronized (latency) {
                        latency.add(mine);
                        waits.add(myWaits);
                    }
                    return ops;
                }));
            }
            long ops = 0;
            long fewest = Long.MAX_VALUE;
            for (Future<Long> future : done) {
                long mine = future.get();
                ops += mine;
                fewest = Math.min(fewest, mine);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            sections.forEach((name, section) -> section.verify(acquisitions.get(name)[0]));
            return new Cell(ops / seconds, latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3,
                    waits.getValueAtPercentile(99) / 1e3, ops == 0 ? 0 : fewest / ((double) ops / threads), ops,
                    latency);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Two clients: the holder keeps the lock for {@code hold} (plus up to {@code jitter}) so the
     * waiter's acquire is in flight, then releases; the latency runs from the release call to the waiter's grant.
     */
    private static Cell handoff(Peer peer, int handoffs, Duration hold, Duration jitter) throws Exception {
        Histogram latency = new Histogram(3);
        CriticalSection section = new CriticalSection();
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try (LockAdapter holder = peer.open().apply(1); LockAdapter waiter = peer.open().apply(1)) {
            LockAdapter.Handle holding = holder.lock("handoff");
            LockAdapter.Handle waiting = waiter.lock("handoff");
            for (int i = 0; i < handoffs; i++) {
                LockAdapter.Held held = holding.acquire();
                section.enter(held.token());
                Future<Long> granted = waiterThread.submit(() -> {
                    LockAdapter.Held next = waiting.acquire();
                    long at = System.nanoTime();
                    section.enter(next.token());
                    next.release();
                    return at;
                });
                Thread.sleep(hold.toMillis() + (jitter.isZero() ? 0 : ThreadLocalRandom.current().nextLong(jitter.toMillis())));
                long released = System.nanoTime();
                held.release();
                latency.recordValue(Math.max(0, granted.get() - released));
            }
            section.verify(2L * handoffs);
            double p99 = latency.getValueAtPercentile(99) / 1e3;
            return new Cell(0, latency.getValueAtPercentile(50) / 1e3, p99, p99, 1, 2L * handoffs, latency);
        } finally {
            waiterThread.shutdownNow();
        }
    }

    /** Each figure's median over the rounds (so one cell's figures may come from different rounds), and their latencies pooled. */
    private static Cell median(List<Cell> cells) {
        Histogram pooled = new Histogram(3);
        cells.forEach(cell -> pooled.add(cell.latencyNanos()));
        return new Cell(median(cells.stream().mapToDouble(Cell::opsPerSecond).toArray()),
                median(cells.stream().mapToDouble(Cell::p50Micros).toArray()),
                median(cells.stream().mapToDouble(Cell::p99Micros).toArray()),
                median(cells.stream().mapToDouble(Cell::p99WaitMicros).toArray()),
                median(cells.stream().mapToDouble(Cell::fairness).toArray()),
                Math.round(median(cells.stream().mapToDouble(Cell::operations).toArray())), pooled);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** The paragraph a report opens with: how the cells were measured, and the machine's load. */
    static String method(Settings settings, Duration took) {
        return "Medians of " + settings.rounds() + " interleaved rounds (order rotated each round, every peer warmed "
                + "up first); " + settings.measure().toMillis() + " ms per throughput cell, " + settings.handoffs()
                + " handoffs per handoff cell. " + MachineLoad.now() + " at the end; the whole run took "
                + took.toSeconds() + " s.\n\nThroughput cells: lock+release per second (p50 / p99 of one "
                + "lock+release); the contended row adds the p99 wait (acquire call to return) and the fairness "
                + "(the fewest acquisitions any thread got against the mean). Handoff: p50 / p99 from the holder's "
                + "release call to the waiter's grant. Every cell checked a plain counter under the lock against "
                + "the acquisitions.\n";
    }

    /**
     * The table as Markdown under a {@code ## store} heading: one column per peer, then one per
     * ratio (ops/s for throughput rows, and the p99 wait for the contended one; p50 latency for the handoff row).
     */
    static String markdown(Table table, List<Ratio> ratios) {
        StringBuilder text = new StringBuilder("\n## ").append(table.store()).append("\n\n| workload |");
        table.peers().forEach(peer -> text.append(' ').append(peer).append(" |"));
        ratios.forEach(ratio -> text.append(' ').append(ratio.numerator()).append(" / ").append(ratio.denominator()).append(" |"));
        text.append("\n|").append(" --- |".repeat(1 + table.peers().size() + ratios.size())).append('\n');
        table.cells().forEach((workload, cells) -> {
            text.append("| ").append(workload.label).append(" |");
            table.peers().forEach(peer -> text.append(' ').append(format(workload, cells.get(peer))).append(" |"));
            for (Ratio ratio : ratios) {
                Cell ours = cells.get(ratio.numerator());
                Cell theirs = cells.get(ratio.denominator());
                text.append(' ').append(switch (workload) {
                    case HANDOFF -> String.format("%.2fx latency", ours.p50Micros() / theirs.p50Micros());
                    case CONTENDED_8 -> String.format("%.2fx ops/s, %.2fx p99 wait", ours.opsPerSecond() / theirs.opsPerSecond(),
                            ours.p99WaitMicros() / theirs.p99WaitMicros());
                    default -> String.format("%.2fx ops/s", ours.opsPerSecond() / theirs.opsPerSecond());
                }).append(" |");
            }
            text.append('\n');
        });
        return text.toString();
    }

    private static String format(Workload workload, Cell cell) {
        String latency = String.format("%.2f / %.2f ms", cell.p50Micros() / 1e3, cell.p99Micros() / 1e3);
        return switch (workload) {
            case HANDOFF -> latency;
            case CONTENDED_8 -> String.format("%,.0f ops/s (%s), p99 wait %.2f ms, fairness %.2f", cell.opsPerSecond(),
                    latency, cell.p99WaitMicros() / 1e3, cell.fairness());
            default -> String.format("%,.0f ops/s (%s)", cell.opsPerSecond(), latency);
        };
    }
}
