package dev.leasehold.bench;

import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.launcher.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * What an etcd that keeps its history costs each peer as a lock name is used: {@code threads}
 * threads on one client, each locking and releasing its own name for {@code seconds}, the rate
 * reported per window of {@code window} seconds, on a new three-member cluster per cell, once as
 * etcd runs by default (no compaction) and once with the history compacted every second. Every
 * Leasehold acquisition creates a key of a new name under its lock's directory, and its queue read
 * walks the deleted ones too until a compaction drops them; jetcd's {@code Lock} names its key by
 * the lease, the same name at every acquisition of a thread. Mutual exclusion is checked in every
 * cell. The first window of each peer is run once beforehand and not reported (JIT warm-up).
 *
 * <pre>
 * java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.EtcdHistoryBench [--smoke]
 *      [--threads N] [--seconds N] [--window N]
 * </pre>
 */
public final class EtcdHistoryBench {

    private static final Duration TTL = Duration.ofSeconds(10);

    /** Threads per cell, its length and the window the rate is reported by. */
    record Settings(int threads, Duration length, Duration window) {

        /** @throws IllegalArgumentException on an unknown argument or a value that is not a positive whole number */
        static Settings parse(List<String> args) {
            int threads = 16;
            Duration length = Duration.ofSeconds(30);
            Duration window = Duration.ofSeconds(5);
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                if (arg.equals("--smoke")) {
                    threads = 2;
                    length = Duration.ofSeconds(2);
                    window = Duration.ofSeconds(1);
                    continue;
                }
                if (i + 1 == args.size()) {
                    throw new IllegalArgumentException(arg + " needs a value; " + USAGE);
                }
                int value = BenchArgs.positive(arg, args.get(++i));
                switch (arg) {
                    case "--threads" -> threads = value;
                    case "--seconds" -> length = Duration.ofSeconds(value);
                    case "--window" -> window = Duration.ofSeconds(value);
                    default -> throw new IllegalArgumentException("unknown argument " + arg + "; " + USAGE);
                }
            }
            if (window.compareTo(length) > 0) {
                throw new IllegalArgumentException("--window must not exceed --seconds; " + USAGE);
            }
            return new Settings(threads, length, window);
        }
    }

    /** One cell: the peer, whether the history was compacted, lock+release per second in each window, the final revision. */
    record Cell(String peer, boolean compacted, List<Double> rates, long revision) {
    }

    private static final String USAGE = "usage: EtcdHistoryBench [--smoke] [--threads N] [--seconds N] [--window N]";

    private EtcdHistoryBench() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.parse(List.of(args));
        System.out.print(markdown(settings, run(settings)));
    }

    /**
     * The four cells, each on its own new cluster: Leasehold and jetcd, without and with compaction,
     * after one unreported window of each peer, so that no cell runs on a cold JIT.
     */
    static List<Cell> run(Settings settings) throws Exception {
        Function<String, LockAdapter> leasehold = endpoints -> new LeaseholdAdapter(EtcdLocks.connect(endpoints), TTL,
                "Leasehold");
        Settings warmUp = new Settings(settings.threads(), settings.window(), settings.window());
        cell("leasehold", leasehold, false, warmUp);
        cell("jetcd", JetcdLockAdapter::connect, false, warmUp);
        List<Cell> cells = new ArrayList<>();
        for (boolean compacted : new boolean[] {false, true}) {
            cells.add(cell("leasehold", leasehold, compacted, settings));
            cells.add(cell("jetcd", JetcdLockAdapter::connect, compacted, settings));
        }
        return cells;
    }

    private static Cell cell(String peer, Function<String, LockAdapter> open, boolean compacted, Settings settings)
            throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(3);
             Client admin = Client.builder().endpoints(etcd.endpoints().split(",")).build();
             LockAdapter adapter = open.apply(etcd.endpoints())) {
            adapter.lock("warm").acquire().release();
            AtomicLong done = new AtomicLong();
            CountDownLatch go = new CountDownLatch(1);
            AtomicLong endAt = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            List<CriticalSection> sections = new ArrayList<>();
            List<AtomicLong> counts = new ArrayList<>();
            for (int t = 0; t < settings.threads(); t++) {
                LockAdapter.Handle handle = adapter.lock("history-" + t);
                CriticalSection section = new CriticalSection();
                AtomicLong count = new AtomicLong();
                sections.add(section);
                counts.add(count);
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    long end = endAt.get();
                    while (System.nanoTime() - end < 0) {
                        LockAdapter.Held held = handle.acquire();
                        try {
                            section.enter(held.token());
                            count.incrementAndGet();
                            done.incrementAndGet();
                        } finally {
                            held.release();
                        }
                    }
                }, "history-" + t);
                thread.start();
                threads.add(thread);
            }
            long windowNanos = settings.window().toNanos();
            long windowStart = System.nanoTime();
            endAt.set(windowStart + settings.length().toNanos());
            go.countDown();
            List<Double> rates = new ArrayList<>();
            long before = 0;
            for (long w = settings.length().toNanos() / windowNanos; w > 0; w--) {
                long windowEnd = windowStart + windowNanos;
                while (System.nanoTime() - windowEnd < 0) {
                    Thread.sleep(Math.min(1_000, Math.max(1, (windowEnd - System.nanoTime()) / 1_000_000)));
                    if (compacted) {
                        admin.getKVClient().compact(revision(admin)).get();
                    }
                }
                long now = done.get();
                rates.add((now - before) * 1e9 / (System.nanoTime() - windowStart));
                before = now;
                windowStart = windowEnd;
            }
            for (Thread thread : threads) {
                thread.join();
            }
            for (int t = 0; t < sections.size(); t++) {
                sections.get(t).verify(counts.get(t).get());
            }
            return new Cell(peer, compacted, rates, revision(admin));
        }
    }

    private static long revision(Client admin) throws Exception {
        return admin.getKVClient().get(ByteSequence.from("history-revision", StandardCharsets.UTF_8)).get()
                .getHeader().getRevision();
    }

    static String markdown(Settings settings, List<Cell> cells) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%d threads on one client, each its own name, %d s per cell; "
                        + "lock+release per second in each %d s window%n%n",
                settings.threads(), settings.length().toSeconds(), settings.window().toSeconds()));
        out.append("| peer | history | ");
        int windows = cells.get(0).rates().size();
        for (int w = 1; w <= windows; w++) {
            out.append("window ").append(w).append(" | ");
        }
        out.append("revision at the end |\n|---|---|");
        out.append("---|".repeat(windows + 1)).append('\n');
        for (Cell cell : cells) {
            out.append("| ").append(cell.peer()).append(" | ").append(cell.compacted() ? "compacted every second" : "kept")
                    .append(" | ");
            for (double rate : cell.rates()) {
                out.append(String.format(Locale.ROOT, "%,.0f | ", rate));
            }
            out.append(String.format(Locale.ROOT, "%,d |%n", cell.revision()));
        }
        return out.toString();
    }
}
