package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BiFunction;
import java.util.stream.LongStream;

/**
 * Contended: several threads loop on one lock name, each holding it only to bump the protected
 * counter; either all threads share one client, or each thread has a client of its own (its own
 * connections, as separate processes would), where every handoff goes through Redis. Measures acquisitions per second, the wait of each acquire (call to
 * return), and how evenly the threads were served: the fewest acquisitions any thread got
 * against the mean. Custom harness rather than JMH: the figures of interest are the per-thread
 * counts and the wait distribution under a fixed window, not a per-call score.
 *
 * <p>Each contender's client is opened once, warmed up with a discarded window, then measured in
 * rounds that rotate the order of the contenders. A contender whose opening, warm-up, probe or any
 * window throws is recorded as a {@link CellFailure}, its clients are closed and it sits out the
 * remaining rounds; the other contenders are measured as if it had not been there.
 */
final class ContendedWorkload {

    /**
     * @param threads            threads on the one lock name
     * @param rounds             measured windows per contender
     * @param warmup             discarded window per contender
     * @param window             length of one measured window
     * @param probeAcquisitions  acquisitions counted with {@code MONITOR}
     */
    record Settings(int threads, int rounds, Duration warmup, Duration window, int probeAcquisitions) {
    }

    /** Whether the threads share one client or each has its own. */
    enum Clients {
        ONE_CLIENT("one client"),
        CLIENT_PER_THREAD("one client per thread");

        final String label;

        Clients(String label) {
            this.label = label;
        }
    }

    /** One contender over all rounds. {@code fairness} is min / mean of per-thread acquisitions. */
    record Cell(List<Double> acquisitionsPerSecond, List<Double> p50PerRound, List<Double> p99PerRound, List<Double> fairness,
                List<long[]> perThread, Histogram waitNanos) {
    }

    /**
     * Cells per contender, and each contender's probe (operations: acquisitions). A contender is in
     * {@code failures} or in {@code cells}, never both; a failed one may still have its probe.
     */
    record Result(Clients clients, Map<Contender, Cell> cells, Map<Contender, CommandProbe.Counted> probes,
                  Map<Contender, CellFailure> failures) {
    }

    /** One window's outcome. */
    private record Window(double perSecond, Histogram waitNanos, long[] perThread) {
    }

    private final RedisServer server;
    private final Settings settings;
    private final Progress progress;
    private final Clients clients;
    private final BiFunction<Contender, List<String>, LockAdapter> opener;

    ContendedWorkload(RedisServer server, Settings settings, Progress progress) {
        this(server, settings, progress, Clients.ONE_CLIENT);
    }

    ContendedWorkload(RedisServer server, Settings settings, Progress progress, Clients clients) {
        this(server, settings, progress, clients, (contender, uris) -> contender.open(uris, Contender.DEFAULT_TTL));
    }

    /** As the others, with the clients connected by {@code opener} (tests substitute a failing one). */
    ContendedWorkload(RedisServer server, Settings settings, Progress progress, Clients clients,
                      BiFunction<Contender, List<String>, LockAdapter> opener) {
        this.server = server;
        this.settings = settings;
        this.progress = progress;
        this.clients = clients;
        this.opener = opener;
    }

    /** Measures every contender; never throws for a contender's failure, which is in {@link Result#failures()}. */
    Result run(List<Contender> contenders) {
        CellRunner runner = new CellRunner(progress, "contended (" + clients.label + ")");
        try {
            Map<Contender, CommandProbe.Counted> probes = runner.warmUp(contenders,
                    contender -> "contended (" + clients.label + ") warm-up: " + contender.label(),
                    this::open, perThread -> {
                        window(perThread, settings.warmup(), Long.MAX_VALUE);
                        return CommandProbe.count(server, () -> LongStream.of(
                                window(perThread, Duration.ofDays(1), settings.probeAcquisitions()).perThread()).sum());
                    });
            Map<Contender, List<Window>> windows = runner.measure(contenders, settings.rounds(),
                    (round, contender) -> "contended (" + clients.label + ") round " + round + "/" + settings.rounds()
                            + ": " + contender.label(),
                    perThread -> window(perThread, settings.window(), Long.MAX_VALUE));
            Map<Contender, Cell> cells = new EnumMap<>(Contender.class);
            windows.forEach((contender, list) -> cells.put(contender, cell(list)));
            return new Result(clients, cells, probes, runner.failures());
        } finally {
            runner.close();
            RedisStats.flush(server);
        }
    }

    /** The adapter each thread uses: one shared, or one per thread; if one fails to open, those opened are closed. */
    private LockAdapter[] open(Contender contender) {
        LockAdapter[] perThread = new LockAdapter[settings.threads()];
        List<String> uris = List.of(server.uri());
        List<LockAdapter> opened = new ArrayList<>();
        try {
            for (int i = 0; i < perThread.length; i++) {
                if (clients == Clients.CLIENT_PER_THREAD || i == 0) {
                    perThread[i] = opener.apply(contender, uris);
                    opened.add(perThread[i]);
                } else {
                    perThread[i] = perThread[0];
                }
            }
        } catch (RuntimeException e) {
            opened.forEach(LockAdapter::close);
            throw e;
        }
        return perThread;
    }

    /**
     * Runs the threads on a fresh lock name until {@code length} passed or {@code limit}
     * acquisitions were made. Only acquisitions returning inside the window count; the ones in
     * flight at its end still go through the correctness check.
     */
    private Window window(LockAdapter[] perThread, Duration length, long limit) {
        String name = LockNames.next();
        LockAdapter.Handle[] locks = new LockAdapter.Handle[perThread.length];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = i > 0 && perThread[i] == perThread[0] ? locks[0] : perThread[i].lock(name);
        }
        CriticalSection section = new CriticalSection();
        AtomicLongArray inWindow = new AtomicLongArray(settings.threads());
        AtomicLongArray all = new AtomicLongArray(settings.threads());
        Histogram[] waits = new Histogram[settings.threads()];
        long[] end = new long[1];
        CyclicBarrier start = new CyclicBarrier(settings.threads(), () -> end[0] = System.nanoTime() + length.toNanos());
        Workers.run("contended", settings.threads(), i -> {
            Histogram wait = new Histogram(3);
            waits[i] = wait;
            awaitStart(start);
            while (true) {
                long calledAt = System.nanoTime();
                if (calledAt - end[0] >= 0 || sum(all) >= limit) {
                    return;
                }
                LockAdapter.Held held = locks[i].acquire();
                long returnedAt = System.nanoTime();
                all.incrementAndGet(i);
                section.enter(held.token());
                held.release();
                if (returnedAt - end[0] < 0) {
                    inWindow.incrementAndGet(i);
                    wait.recordValue(returnedAt - calledAt);
                }
            }
        });
        section.verify(sum(all));
        Histogram merged = new Histogram(3);
        for (Histogram wait : waits) {
            merged.add(wait);
        }
        long[] counts = new long[settings.threads()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = inWindow.get(i);
        }
        return new Window(sum(inWindow) / (length.toNanos() / 1e9), merged, counts);
    }

    private static long sum(AtomicLongArray counts) {
        long total = 0;
        for (int i = 0; i < counts.length(); i++) {
            total += counts.get(i);
        }
        return total;
    }

    /** All threads start together; the barrier's action fixes the window's end before any is released. */
    private static void awaitStart(CyclicBarrier start) {
        try {
            start.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted before the window", e);
        } catch (BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("the window never started", e);
        }
    }

    private static Cell cell(List<Window> windows) {
        List<Double> perSecond = new ArrayList<>();
        List<Double> p50 = new ArrayList<>();
        List<Double> p99 = new ArrayList<>();
        List<Double> fairness = new ArrayList<>();
        List<long[]> perThread = new ArrayList<>();
        Histogram all = new Histogram(3);
        for (Window window : windows) {
            perSecond.add(window.perSecond());
            p50.add((double) window.waitNanos().getValueAtPercentile(50));
            p99.add((double) window.waitNanos().getValueAtPercentile(99));
            long min = Long.MAX_VALUE;
            long total = 0;
            for (long count : window.perThread()) {
                min = Math.min(min, count);
                total += count;
            }
            fairness.add(total == 0 ? 0 : min / ((double) total / window.perThread().length));
            perThread.add(window.perThread());
            all.add(window.waitNanos());
        }
        return new Cell(perSecond, p50, p99, fairness, perThread, all);
    }
}
