package dev.leasehold.bench;

import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.launcher.EtcdCluster;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * Where the time of an uncontended etcd lock+release goes, Leasehold against jetcd's {@code Lock}
 * client on one three-member etcd cluster: for each peer, rounds of {@code threads} threads on one
 * client (each its own name), interleaved with the order rotated, and per lock+release the CPU of
 * this JVM (the client, its gRPC threads and the load threads, which both peers share alike), of
 * each client thread group, and of the etcd members. The throughput figures are
 * {@link ConsensusBench}'s; this one says what each lock+release costs on each side, and is the
 * harness to run under a profiler ({@code --only} one peer, {@code --seconds} long enough for a
 * JFR recording).
 *
 * <pre>
 * java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.EtcdClientCpu [--smoke]
 *      [--only leasehold|jetcd] [--threads N] [--seconds N] [--rounds N] [--out FILE] [--jfr BASE]
 * </pre>
 */
public final class EtcdClientCpu {

    private static final Duration TTL = Duration.ofSeconds(10);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * What one run measures: the peers, threads per cell, the length of a cell and the rounds, and
     * where the report goes besides standard output (null: nowhere else), and the base name of a
     * JFR recording of each measured cell (null: none).
     */
    record Settings(List<String> peers, int threads, Duration cell, int rounds, Path out, Path jfr) {

        static final List<String> PEERS = List.of("leasehold", "jetcd");

        /**
         * @throws IllegalArgumentException on an unknown argument or value, naming it and the usage
         */
        static Settings parse(List<String> args) {
            List<String> peers = PEERS;
            int threads = 16;
            Duration cell = Duration.ofSeconds(4);
            int rounds = 3;
            Path out = null;
            Path jfr = null;
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                if (arg.equals("--smoke")) {
                    cell = Duration.ofMillis(300);
                    rounds = 1;
                    continue;
                }
                if (i + 1 == args.size()) {
                    throw new IllegalArgumentException(arg + " needs a value; " + USAGE);
                }
                String value = args.get(++i);
                switch (arg) {
                    case "--only" -> {
                        if (!PEERS.contains(value)) {
                            throw new IllegalArgumentException("--only needs leasehold or jetcd, got '" + value + "'");
                        }
                        peers = List.of(value);
                    }
                    case "--threads" -> threads = BenchArgs.positive(arg, value);
                    case "--seconds" -> cell = Duration.ofSeconds(BenchArgs.positive(arg, value));
                    case "--rounds" -> rounds = BenchArgs.positive(arg, value);
                    case "--out" -> out = Path.of(value);
                    case "--jfr" -> jfr = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown argument " + arg + "; " + USAGE);
                }
            }
            return new Settings(peers, threads, cell, rounds, out, jfr);
        }
    }

    /**
     * One cell: lock+release per second, and CPU microseconds per lock+release of this JVM, of each
     * of its thread groups, and of the etcd members together.
     */
    record Cell(double opsPerSecond, long ops, double jvmMicros, Map<String, Double> groupMicros, double serverMicros) {
    }

    private static final String USAGE = "usage: EtcdClientCpu [--smoke] [--only leasehold|jetcd] [--threads N] "
            + "[--seconds N] [--rounds N] [--out FILE] [--jfr BASE]";

    private EtcdClientCpu() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.parse(List.of(args));
        String report = markdown(settings, run(settings));
        if (settings.out() != null) {
            Files.writeString(settings.out(), report);
        }
        System.out.print(report);
    }

    /** Starts a three-member cluster, warms each peer up, then runs the interleaved rounds. */
    static Map<String, List<Cell>> run(Settings settings) throws Exception {
        Map<String, List<Cell>> cells = new LinkedHashMap<>();
        try (EtcdCluster etcd = EtcdCluster.start(3)) {
            Map<String, Supplier<LockAdapter>> peers = new LinkedHashMap<>();
            for (String peer : settings.peers()) {
                peers.put(peer, peer.equals("jetcd")
                        ? () -> JetcdLockAdapter.connect(etcd.endpoints())
                        : () -> new LeaseholdAdapter(EtcdLocks.connect(etcd.endpoints()), TTL, "Leasehold"));
                cells.put(peer, new ArrayList<>());
            }
            List<String> order = List.copyOf(peers.keySet());
            for (String peer : order) {
                cell(peers.get(peer), settings.threads(), settings.cell(), etcd, null);
            }
            for (int round = 0; round < settings.rounds(); round++) {
                for (int i = 0; i < order.size(); i++) {
                    String peer = order.get((i + round) % order.size());
                    Recording recording = settings.jfr() == null ? null : recording(settings.jfr(), peer, round);
                    cells.get(peer).add(cell(peers.get(peer), settings.threads(), settings.cell(), etcd, recording));
                }
            }
        }
        return cells;
    }

    /**
     * A JFR recording with the JDK's {@code profile} settings (method samples, allocation samples)
     * that writes {@code <base>-<peer>-<round>.jfr} when stopped.
     */
    private static Recording recording(Path base, String peer, int round) throws IOException, ParseException {
        Recording recording = new Recording(Configuration.getConfiguration("profile"));
        recording.setDestination(Path.of(base + "-" + peer + "-" + (round + 1) + ".jfr"));
        return recording;
    }

    private static Cell cell(Supplier<LockAdapter> open, int threads, Duration length, EtcdCluster etcd,
                             Recording recording) throws Exception {
        try (LockAdapter adapter = open.get()) {
            // The client's connection and session first, outside the measured window.
            LockAdapter.Held first = adapter.lock("warm").acquire();
            first.release();
            List<Load> loads = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                loads.add(new Load(adapter.lock("cpu-" + t)));
            }
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Load load = loads.get(t);
                Thread thread = new Thread(() -> load.run(go, length), "load-" + t);
                thread.start();
                running.add(thread);
            }
            if (recording != null) {
                recording.start();
            }
            ThreadCpu before = ThreadCpu.snapshot();
            double serverBefore = serverSeconds(etcd);
            long started = System.nanoTime();
            go.countDown();
            for (Thread thread : running) {
                thread.join();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            ThreadCpu after = ThreadCpu.snapshot();
            double serverAfter = serverSeconds(etcd);
            if (recording != null) {
                recording.stop();
            }
            long ops = 0;
            double loadSeconds = 0;
            for (Load load : loads) {
                load.section.verify(load.acquisitions);
                ops += load.acquisitions;
                loadSeconds += load.cpuNanos / 1e9;
            }
            Map<String, Double> groups = new LinkedHashMap<>();
            groups.put(LOAD, loadSeconds * 1e6 / ops);
            double perOp = seconds * 1e6 / ops / 100;
            after.percentSince(before, seconds).forEach((group, percent) -> {
                // The load threads ended before the snapshot: their CPU is in the JVM's remainder.
                double micros = percent * perOp - (group.equals(ThreadCpu.JVM) ? groups.get(LOAD) : 0);
                groups.put(group.replaceAll("-\\d+", ""), Math.max(0, micros));
            });
            double jvm = groups.values().stream().mapToDouble(Double::doubleValue).sum();
            return new Cell(ops / seconds, ops, jvm, sorted(groups), (serverAfter - serverBefore) * 1e6 / ops);
        }
    }

    /** The thread group of the threads that call acquire and release. */
    static final String LOAD = "load threads";

    /** One load thread: lock+release of its own name until the cell ends; its CPU measured by itself. */
    private static final class Load {
        private final LockAdapter.Handle handle;
        private final CriticalSection section = new CriticalSection();
        private long acquisitions;
        private long cpuNanos;

        Load(LockAdapter.Handle handle) {
            this.handle = handle;
        }

        void run(CountDownLatch go, Duration length) {
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long cpuBefore = THREADS.getCurrentThreadCpuTime();
            long end = System.nanoTime() + length.toNanos();
            while (System.nanoTime() < end) {
                LockAdapter.Held held = handle.acquire();
                try {
                    section.enter(held.token());
                    acquisitions++;
                } finally {
                    held.release();
                }
            }
            cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuBefore;
        }
    }

    private static Map<String, Double> sorted(Map<String, Double> groups) {
        Map<String, Double> sorted = new LinkedHashMap<>();
        groups.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(group -> sorted.put(group.getKey(), group.getValue()));
        return sorted;
    }

    /** CPU seconds the etcd members used so far (user and system, from {@code /proc/<pid>/stat}); NaN if unreadable. */
    private static double serverSeconds(EtcdCluster etcd) {
        double total = 0;
        for (int member = 0; member < etcd.size(); member++) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(etcd.pid(member)), "stat"));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                // After the command: state is field 3, utime 14 and stime 15 (1-based, in clock ticks).
                total += (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
            } catch (IOException | RuntimeException unreadable) {
                return Double.NaN;
            }
        }
        return total;
    }

    static String markdown(Settings settings, Map<String, List<Cell>> cells) {
        StringBuilder text = new StringBuilder("Uncontended lock+release, ").append(settings.threads())
                .append(" threads on one client, ").append(settings.cell().toMillis()).append(" ms per cell, ")
                .append(settings.rounds()).append(" interleaved rounds (each peer warmed up first). ")
                .append(MachineLoad.now()).append(" at the end.\n\n")
                .append("| peer | round | lock+release/s (count) | client JVM CPU per lock+release | etcd members' CPU per lock+release | largest client thread groups (µs each) |\n")
                .append("| --- | --- | --- | --- | --- | --- |\n");
        cells.forEach((peer, list) -> {
            for (int round = 0; round < list.size(); round++) {
                Cell cell = list.get(round);
                StringBuilder groups = new StringBuilder();
                cell.groupMicros().entrySet().stream().limit(5).forEach(group -> groups.append(groups.isEmpty() ? "" : ", ")
                        .append(group.getKey()).append(' ').append(Fmt.count(group.getValue())));
                text.append("| ").append(peer).append(" | ").append(round + 1).append(" | ")
                        .append(Fmt.count(cell.opsPerSecond())).append(" (").append(Fmt.count(cell.ops())).append(") | ").append(Fmt.count(cell.jvmMicros()))
                        .append(" µs | ").append(Fmt.count(cell.serverMicros())).append(" µs | ").append(groups).append(" |\n");
            }
        });
        return text.toString();
    }
}
