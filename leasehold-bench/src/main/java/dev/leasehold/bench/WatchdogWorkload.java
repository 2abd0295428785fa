package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Watchdog cost: one client holds many leases at once with a short ttl for a long window, and
 * does nothing else. Sampled every {@code sample}: the script calls ({@code EVALSHA} +
 * {@code EVAL}, i.e. renewals) and all commands the server executed (script-internal included),
 * and this JVM's CPU time; over the whole window, the server's CPU and this JVM's CPU per thread
 * group. Script calls against leases due show whether renewals are batched (many leases per
 * call); the server's socket reads, whether the calls are pipelined (many calls per read).
 *
 * <p>Each contender gets its own client, one after the other; an idle window before them gives
 * the harness JVM's own CPU use, which is in every client figure too. Around the window it can also
 * measure what the leases cost in heap ({@link HeapProbe}: used after a collection with the leases
 * held, against before they were taken and after they were released, and the classes that grew), and
 * it checks that every lease stayed valid from its acquire to the end of the window: no key expired on
 * the server ({@code INFO stats expired_keys}), every lock key is still there, and, where the
 * library keeps local lease state, the client still counts every lease as held.
 */
final class WatchdogWorkload {

    /**
     * @param leases  leases held at once
     * @param ttl     lock ttl: renewal every ttl/3
     * @param warmup  discarded time after all leases are held, so the renewal path is compiled
     *                (JIT) before the window, as every other workload warms up first
     * @param window  measured window, after the warm-up
     * @param sample  sampling period
     * @param acquirers threads that take the leases in parallel (and later release their own)
     * @param measureHeap whether to measure {@link Heap}: its full collections pause the JVM, renewals
     *                  included, around the acquisitions, which a ttl of a few hundred ms may not survive
     */
    record Settings(int leases, Duration ttl, Duration warmup, Duration window, Duration sample, int acquirers,
                    boolean measureHeap) {

        /** Leases taken by one thread; no heap figures. */
        Settings(int leases, Duration ttl, Duration warmup, Duration window, Duration sample) {
            this(leases, ttl, warmup, window, sample, 1, false);
        }

        /** The same with {@code leases} leases taken by {@code acquirers} threads. */
        Settings withLeases(int leases, int acquirers) {
            return new Settings(leases, ttl, warmup, window, sample, acquirers, measureHeap);
        }
    }

    /**
     * What the leases cost in heap, measured after collections ({@link HeapProbe}).
     *
     * @param bytesPerLease     heap used with every lease held minus before the first was taken, per lease;
     *                          includes the harness's own share (the name, a list slot, the adapter's wrapper)
     * @param bytesLeftPerLease heap used after every lease was released minus before, per lease
     * @param classes           the classes that grew most while the leases were held, per lease
     */
    record Heap(double bytesPerLease, double bytesLeftPerLease, List<HeapProbe.Growth> classes) {

        /** Not measured ({@link Settings#measureHeap()} off). */
        static final Heap NONE = new Heap(Double.NaN, Double.NaN, List.of());
    }

    /**
     * Whether the leases stayed valid from the first acquire to the end of the window.
     *
     * @param acquireSeconds  from the first acquire to the last
     * @param expiredKeys     keys the server expired meanwhile ({@code INFO stats expired_keys}): a lock
     *                        key that expired is a lease that lapsed
     * @param lostLocally     leases the client itself no longer counted as held at the end, or -1 where
     *                        the library keeps no local lease state
     * @param releaseFailures releases that threw (Redisson's {@code unlock} of a lock that lapsed)
     */
    record Hold(double acquireSeconds, long expiredKeys, long lostLocally, long releaseFailures) {

        /** No key expired, no lease was lost as far as the client knows, and every release succeeded. */
        boolean allValid() {
            return expiredKeys == 0 && lostLocally <= 0 && releaseFailures == 0;
        }
    }

    /**
     * One contender's window.
     *
     * @param scriptCallsPerSecond per sample: script calls per second
     * @param allCallsPerSecond    per sample: every command per second, script-internal included
     * @param clientCpuPercent     per sample: this JVM's CPU, in % of one core
     * @param serverCpuPercent     the server's CPU over the window, in % of one core
     * @param callsPerRead         script calls per socket read of the server over the window
     * @param leasesAliveAtEnd     the leases' lock keys still present at the end of the window
     * @param cpuByThreadGroup     this JVM's CPU over the window by thread group, in % of one core
     * @param scriptMicrosPerRenewal the server's time in scripts ({@code INFO commandstats} usec of
     *                             {@code EVALSHA} + {@code EVAL}) over the window, per renewal due in it
     * @param allocatedPerRenewal  bytes this JVM's threads allocated over the window, per renewal due in it
     *                             (the harness's idle share included)
     * @param heap                 what the leases cost in heap
     * @param hold                 whether they stayed valid
     */
    record Cell(List<Double> scriptCallsPerSecond, List<Double> allCallsPerSecond, List<Double> clientCpuPercent,
                double serverCpuPercent, double callsPerRead, long leasesAliveAtEnd,
                Map<String, Double> cpuByThreadGroup, double scriptMicrosPerRenewal, double allocatedPerRenewal,
                Heap heap, Hold hold) {

        /** This JVM's CPU over the window, in % of one core: the mean of the samples, which bursts of renewals do not hide. */
        double meanClientCpuPercent() {
            return clientCpuPercent.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        }

        /** Script calls per second over the window: the mean of the samples. */
        double meanScriptCallsPerSecond() {
            return scriptCallsPerSecond.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        }

        /**
         * Renewals due over the window divided by the script calls in it. Unlike {@link #leasesPerScriptCall},
         * right for renewals that come in bursts (a long ttl, leases taken within a few seconds), where most
         * one-second samples see no call at all.
         */
        double leasesPerScriptCallOverWindow(Settings settings) {
            double renewalsPerSecond = settings.leases() / (settings.ttl().toNanos() / 3e9);
            return renewalsPerSecond / Math.max(1e-9, meanScriptCallsPerSecond());
        }

        /** Renewals due per second divided by script calls per second: above 1 means renewals are batched. */
        double leasesPerScriptCall(Settings settings) {
            double renewalsPerSecond = settings.leases() / (settings.ttl().toNanos() / 3e9);
            return renewalsPerSecond / Math.max(1, Spread.of(scriptCallsPerSecond).median());
        }
    }

    /** Cells per contender, and the harness JVM's CPU in an idle window (% of one core). */
    record Result(Map<Contender, Cell> cells, double idleClientCpuPercent) {
    }

    private final RedisServer server;
    private final Settings settings;
    private final Progress progress;

    WatchdogWorkload(RedisServer server, Settings settings, Progress progress) {
        this.server = server;
        this.settings = settings;
        this.progress = progress;
    }

    Result run(List<Contender> contenders) {
        progress.step("watchdog: idle baseline");
        double idle = idleCpuPercent();
        Map<Contender, Cell> cells = new EnumMap<>(Contender.class);
        for (Contender contender : contenders) {
            progress.step("watchdog: " + contender.label() + ", " + settings.leases() + " leases, ttl "
                    + settings.ttl().toMillis() + " ms, held " + settings.window().toMillis() + " ms");
            cells.put(contender, measure(contender));
        }
        return new Result(cells, idle);
    }

    private double idleCpuPercent() {
        double cpuBefore = ProcessCpu.seconds();
        long start = System.nanoTime();
        LockSupport.parkNanos(settings.sample().multipliedBy(3).toNanos());
        return 100 * (ProcessCpu.seconds() - cpuBefore) / ((System.nanoTime() - start) / 1e9);
    }

    /** Classes listed per cell in {@link Heap#classes()}. */
    private static final int HEAP_CLASSES = 12;
    /** Collections per heap figure: their median is taken. */
    private static final int HEAP_SAMPLES = 3;

    private Cell measure(Contender contender) {
        try (LockAdapter adapter = contender.open(List.of(server.uri()), settings.ttl())) {
            // One lease first, so that connections, loaded scripts and the client's threads are no per-lease
            // cost. It is held to the end: Redisson 4 never cancels the renewal timer its first lock starts, so
            // a set of watched locks that empties and fills again within a period gets a second timer and every
            // lock is renewed twice a period (WatchdogRenewalRateTest).
            LockAdapter.Held first = adapter.lock(LockNames.next()).acquire();
            Map<String, HeapProbe.Entry> classesBefore = histogram();
            // Taken after the histogram, which stays live until the leases' one: both figures include it.
            long heapBefore = usedAfterGc();
            double expiredBefore = expiredKeys();
            HeldLeases held = HeldLeases.acquire(adapter, settings.leases(), settings.acquirers());
            long heapHeld = usedAfterGc();
            List<HeapProbe.Growth> classes = HeapProbe.growth(classesBefore, histogram(), settings.leases(),
                    HEAP_CLASSES);
            LockSupport.parkNanos(settings.warmup().toNanos());
            double expiredBeforeWindow = expiredKeys() - expiredBefore;
            Window window = window();
            long alive = held.keysOn(server);
            // The window reset the server's counters at its start.
            long expired = (long) (expiredBeforeWindow + expiredKeys());
            long lostLocally = held.lostLocally();
            Hold hold = new Hold(held.acquireSeconds(), expired, lostLocally, held.releaseAll());
            long heapAfter = usedAfterGc();
            first.release();
            Heap heap = !settings.measureHeap() ? Heap.NONE : new Heap((heapHeld - heapBefore) / (double) settings.leases(),
                    (heapAfter - heapBefore) / (double) settings.leases(), classes);
            return new Cell(window.scripts(), window.calls(), window.cpu(), window.serverCpu(), window.callsPerRead(),
                    alive, window.byThreadGroup(), window.scriptMicros(), window.allocatedPerRenewal(), heap, hold);
        } finally {
            RedisStats.flush(server);
        }
    }

    /** {@link HeapProbe#usedAfterGc}, or 0 without heap figures. */
    private long usedAfterGc() {
        return settings.measureHeap() ? HeapProbe.usedAfterGc(HEAP_SAMPLES) : 0;
    }

    /** {@link HeapProbe#histogram()}, or none without heap figures. */
    private Map<String, HeapProbe.Entry> histogram() {
        return settings.measureHeap() ? HeapProbe.histogram() : Map.of();
    }

    private double expiredKeys() {
        return RedisStats.infoField(server, "stats", "expired_keys");
    }

    /** The window's figures: see {@link Cell}. */
    private record Window(List<Double> scripts, List<Double> calls, List<Double> cpu, double serverCpu,
                          double callsPerRead, Map<String, Double> byThreadGroup, double scriptMicros,
                          double allocatedPerRenewal) {
    }

    /** The sampling's own commands, left out of the counts. */
    private static boolean isProbe(String command) {
        return command.equals("info") || command.startsWith("config");
    }

    private Window window() {
        RedisStats.reset(server);
        double serverCpuStart = RedisStats.serverCpuSeconds(server);
        double readsStart = RedisStats.infoField(server, "stats", "total_reads_processed");
        long scriptsSoFar = 0;
        long callsSoFar = 0;
        ThreadCpu threadsStart = ThreadCpu.snapshot();
        double cpuAt = ProcessCpu.seconds();
        long at = System.nanoTime();
        long start = at;
        List<Double> scripts = new ArrayList<>();
        List<Double> calls = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        long end = start + settings.window().toNanos();
        while (end - at > 0) {
            LockSupport.parkNanos(Math.min(settings.sample().toNanos(), end - at));
            Map<String, Long> now = RedisStats.commandCalls(server);
            double cpuNow = ProcessCpu.seconds();
            long nanos = System.nanoTime();
            double seconds = (nanos - at) / 1e9;
            long scriptCalls = now.getOrDefault("evalsha", 0L) + now.getOrDefault("eval", 0L);
            long allCalls = now.entrySet().stream().filter(e -> !isProbe(e.getKey()))
                    .mapToLong(Map.Entry::getValue).sum();
            scripts.add((scriptCalls - scriptsSoFar) / seconds);
            calls.add((allCalls - callsSoFar) / seconds);
            cpu.add(100 * (cpuNow - cpuAt) / seconds);
            scriptsSoFar = scriptCalls;
            callsSoFar = allCalls;
            cpuAt = cpuNow;
            at = nanos;
        }
        double windowSeconds = (at - start) / 1e9;
        ThreadCpu threadsEnd = ThreadCpu.snapshot();
        Map<String, Double> byThreadGroup = threadsEnd.percentSince(threadsStart, windowSeconds);
        double serverCpu = 100 * (RedisStats.serverCpuSeconds(server) - serverCpuStart) / windowSeconds;
        double reads = RedisStats.infoField(server, "stats", "total_reads_processed") - readsStart;
        Map<String, Long> micros = RedisStats.commandMicros(server);
        double renewalsDue = settings.leases() * windowSeconds / (settings.ttl().toNanos() / 3e9);
        double scriptMicros = (micros.getOrDefault("evalsha", 0L) + micros.getOrDefault("eval", 0L)) / renewalsDue;
        return new Window(scripts, calls, cpu, serverCpu, scriptsSoFar / Math.max(1, reads), byThreadGroup,
                scriptMicros, threadsEnd.allocatedSince(threadsStart) / renewalsDue);
    }
}
