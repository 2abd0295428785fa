package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One cell of the herd row: a {@link Herd} of {@code waiters} on one lock name, spread over one
 * contender's clients, measured in two windows after a warm-up. The timed window gives grants per
 * second, the handoff latency (release call to the next grant), the server's command count
 * ({@code INFO commandstats}, script-internal commands included), the server's and this JVM's CPU
 * and the herd threads' waits inside the library; the probe window, under {@code MONITOR}
 * ({@link HerdProbe}), gives the commands the clients sent, the acquire-script calls and the pub/sub
 * messages delivered. Both windows open and close at the herd's quiet points, so a window holds
 * exactly the releases and grants it counts.
 */
final class HerdWorkload {

    /**
     * @param herds       the herd sizes (waiters at every release)
     * @param clients     clients per contender the waiters are spread over
     * @param rounds      measured rounds of every cell
     * @param warmUp      how long each cell runs before its timed window
     * @param window      the timed window
     * @param probeWindow the window under {@code MONITOR}
     */
    record Settings(List<Integer> herds, int clients, int rounds, Duration warmUp, Duration window, Duration probeWindow) {

        static Settings full() {
            return new Settings(List.of(1, 10, 100, 1000), 10, 3, Duration.ofMillis(1500), Duration.ofSeconds(3),
                    Duration.ofMillis(1500));
        }

        static Settings smoke() {
            return new Settings(List.of(1, 30), 10, 1, Duration.ofMillis(200), Duration.ofMillis(400),
                    Duration.ofMillis(300));
        }
    }

    /**
     * What one contender costs per uncontended lock+release, to compare a herd's grants with.
     *
     * @param acquireScript the {@link HerdProbe#scriptKey} of its acquire script
     * @param waitsPerCycle waits of the calling thread inside the library per lock+release
     */
    record Calibration(String acquireScript, double waitsPerCycle) {
    }

    /**
     * One cell.
     *
     * @param waiters                 threads blocked in acquire at every release
     * @param grants                  grants in the timed window
     * @param seconds                 length of the timed window
     * @param handoffNanos            release call to the next grant, every grant of the timed window
     * @param waitsPerGrant           herd threads' waits inside the library per grant
     * @param serverCommandsPerGrant  commands the server ran per grant, script-internal ones included
     * @param serverCpuMicrosPerGrant redis-server CPU per grant
     * @param clientCpuMicrosPerGrant this JVM's CPU per grant (all clients, JIT and GC included)
     * @param probeGrants             grants in the probe window
     * @param probe                   what the probe window cost the server
     */
    record Cell(int waiters, long grants, double seconds, Histogram handoffNanos, double waitsPerGrant,
                double serverCommandsPerGrant, double serverCpuMicrosPerGrant, double clientCpuMicrosPerGrant,
                long probeGrants, HerdProbe.Counted probe) {

        double grantsPerSecond() {
            return grants / seconds;
        }

        double clientCommandsPerGrant() {
            return (double) probe.clientCommandsTotal() / probeGrants;
        }

        double attemptsPerGrant() {
            return (double) probe.scriptCalls() / probeGrants;
        }

        double deliveriesPerGrant() {
            return (double) probe.deliveries() / probeGrants;
        }
    }

    private HerdWorkload() {
    }

    /**
     * Measures {@code adapter}'s uncontended lock+release on a fresh name: which script its
     * acquire runs (the first script call of a lock+release) and how often the calling thread waits.
     */
    static Calibration calibrate(RedisServer server, LockAdapter adapter) {
        LockAdapter.Handle handle = adapter.lock(LockNames.next());
        int cycles = 200;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        AtomicReference<Calibration> result = new AtomicReference<>();
        Workers.run("herd-calibration", 1, ignored -> {
            for (int i = 0; i < cycles; i++) {
                handle.acquire().release();
            }
            String script;
            try (HerdProbe probe = HerdProbe.start(server, null)) {
                handle.acquire().release();
                script = probe.stop().firstScript();
            }
            long id = Thread.currentThread().getId();
            long before = threads.getThreadInfo(id).getWaitedCount();
            for (int i = 0; i < cycles; i++) {
                handle.acquire().release();
            }
            long after = threads.getThreadInfo(id).getWaitedCount();
            result.set(new Calibration(script, (after - before) / (double) cycles));
        });
        return result.get();
    }

    /** Runs one cell: a herd of {@code waiters} on {@code clients}. */
    static Cell measure(RedisServer server, List<LockAdapter> clients, int waiters, Settings settings,
                        Calibration calibration) {
        String name = LockNames.next();
        List<LockAdapter.Handle> handles = new ArrayList<>();
        clients.forEach(client -> handles.add(client.lock(name)));
        Window timed = new Window();
        Window probed = new Window();
        AtomicReference<HerdProbe> probe = new AtomicReference<>();
        AtomicReference<HerdProbe.Counted> counted = new AtomicReference<>();
        Herd[] herd = new Herd[1];
        herd[0] = new Herd(handles, waiters, List.of(
                new Herd.Step(settings.warmUp(), () -> {
                    timed.open(server, herd[0]);
                    herd[0].record(true);
                }),
                new Herd.Step(settings.window(), () -> {
                    herd[0].record(false);
                    timed.close(server, herd[0]);
                    probed.grantsAtStart = herd[0].grants();
                    probe.set(HerdProbe.start(server, calibration.acquireScript()));
                }),
                new Herd.Step(settings.probeWindow(), () -> {
                    try (HerdProbe open = probe.get()) {
                        counted.set(open.stop());
                    }
                    probed.grantsAtEnd = herd[0].grants();
                })));
        try {
            herd[0].run();
        } finally {
            HerdProbe left = probe.get();
            if (left != null) {
                left.close();
            }
        }
        long grants = timed.grantsAtEnd - timed.grantsAtStart;
        long probeGrants = probed.grantsAtEnd - probed.grantsAtStart;
        if (grants == 0 || probeGrants == 0) {
            throw new IllegalStateException("the herd of " + waiters + " made no grant in a window (" + grants
                    + " timed, " + probeGrants + " probed): the lock is stuck or the windows are too short");
        }
        return new Cell(waiters, grants, timed.seconds(), herd[0].handoffNanos(),
                (double) (timed.waitsAtEnd - timed.waitsAtStart) / grants,
                (double) (sum(timed.commandsAtEnd) - sum(timed.commandsAtStart)) / grants,
                1e6 * (timed.serverCpuAtEnd - timed.serverCpuAtStart) / grants,
                1e6 * (timed.clientCpuAtEnd - timed.clientCpuAtStart) / grants,
                probeGrants, counted.get());
    }

    /** Commands counted, leaving out the {@code INFO}s that read the counters. */
    private static long sum(Map<String, Long> counts) {
        return counts.entrySet().stream().filter(entry -> !entry.getKey().equals("info"))
                .mapToLong(Map.Entry::getValue).sum();
    }

    /** Counters read at a window's quiet points; only the holder of the moment writes them. */
    private static final class Window {
        volatile long nanosAtStart;
        volatile long nanosAtEnd;
        volatile long grantsAtStart;
        volatile long grantsAtEnd;
        volatile long waitsAtStart;
        volatile long waitsAtEnd;
        volatile double serverCpuAtStart;
        volatile double serverCpuAtEnd;
        volatile double clientCpuAtStart;
        volatile double clientCpuAtEnd;
        volatile Map<String, Long> commandsAtStart = Map.of();
        volatile Map<String, Long> commandsAtEnd = Map.of();

        void open(RedisServer server, Herd herd) {
            commandsAtStart = RedisStats.commandCalls(server);
            serverCpuAtStart = RedisStats.serverCpuSeconds(server);
            clientCpuAtStart = ProcessCpu.seconds();
            waitsAtStart = herd.libraryWaits();
            grantsAtStart = herd.grants();
            nanosAtStart = System.nanoTime();
        }

        void close(RedisServer server, Herd herd) {
            nanosAtEnd = System.nanoTime();
            grantsAtEnd = herd.grants();
            waitsAtEnd = herd.libraryWaits();
            clientCpuAtEnd = ProcessCpu.seconds();
            serverCpuAtEnd = RedisStats.serverCpuSeconds(server);
            commandsAtEnd = RedisStats.commandCalls(server);
        }

        double seconds() {
            return (nanosAtEnd - nanosAtStart) / 1e9;
        }
    }
}
