package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;

/**
 * Handoff latency: two parties pass one lock back and forth. While one holds it, the other calls
 * acquire and blocks; after {@code hold} the holder notes the time and calls release; the figure
 * is the time from that release call to the waiter's acquire returning (a waiter may win before
 * the holder's release returns, so the clock starts at the call). Custom harness rather than
 * JMH: the measured interval spans two threads.
 *
 * <p>Two pairings: the parties on separate clients (separate connections, as two processes
 * would be), and two threads of one client. A handoff whose waiter had not even called acquire
 * by the time of the release (only when the machine stalls for longer than {@code hold}) is
 * not a blocked-waiter handoff: it is counted apart and left out of the latencies.
 *
 * <p>A contender whose opening, warm-up, probe or any round throws in a pairing is recorded as a
 * {@link CellFailure} of that pairing, its clients are closed and it sits out that pairing's
 * remaining rounds; the others are measured as if it had not been there.
 */
final class HandoffWorkload {

    /**
     * @param rounds           measured sessions per contender and pairing
     * @param handoffsPerRound handoffs per measured session
     * @param warmupHandoffs   discarded handoffs per contender and pairing
     * @param hold             how long a holder keeps the lock while the other party waits
     * @param probeHandoffs    handoffs counted with {@code MONITOR}
     */
    record Settings(int rounds, int handoffsPerRound, int warmupHandoffs, Duration hold, int probeHandoffs) {
    }

    /** Whether the two parties share a client. */
    enum Pairing {
        SEPARATE_CLIENTS("separate clients"),
        SAME_CLIENT("two threads of one client");

        final String label;

        Pairing(String label) {
            this.label = label;
        }
    }

    /** One contender in one pairing, over all rounds. */
    record Cell(Histogram latencyNanos, List<Double> p50PerRound, List<Double> p99PerRound, long notBlocked) {
    }

    /**
     * Cells and probes (operations: handoffs) per pairing and contender; in each pairing a contender
     * is in {@code failures} or in {@code cells}, never both.
     */
    record Result(Map<Pairing, Map<Contender, Cell>> cells, Map<Pairing, Map<Contender, CommandProbe.Counted>> probes,
                  Map<Pairing, Map<Contender, CellFailure>> failures) {
    }

    /** One session's outcome. */
    private record Session(Histogram latencyNanos, long handoffs, long notBlocked) {
    }

    private final RedisServer server;
    private final Settings settings;
    private final Progress progress;
    private final BiFunction<Contender, List<String>, LockAdapter> opener;

    HandoffWorkload(RedisServer server, Settings settings, Progress progress) {
        this(server, settings, progress, (contender, uris) -> contender.open(uris, Contender.DEFAULT_TTL));
    }

    /** As the other, with the clients connected by {@code opener} (tests substitute a failing one). */
    HandoffWorkload(RedisServer server, Settings settings, Progress progress,
                    BiFunction<Contender, List<String>, LockAdapter> opener) {
        this.server = server;
        this.settings = settings;
        this.progress = progress;
        this.opener = opener;
    }

    /** Measures every contender in every pairing; never throws for a contender's failure, which is in {@link Result#failures()}. */
    Result run(List<Contender> contenders) {
        Map<Pairing, Map<Contender, Cell>> cells = new EnumMap<>(Pairing.class);
        Map<Pairing, Map<Contender, CommandProbe.Counted>> probes = new EnumMap<>(Pairing.class);
        Map<Pairing, Map<Contender, CellFailure>> failures = new EnumMap<>(Pairing.class);
        for (Pairing pairing : Pairing.values()) {
            CellRunner runner = new CellRunner(progress, "handoff (" + pairing.label + ")");
            failures.put(pairing, runner.failures());
            try {
                Map<Contender, CommandProbe.Counted> pairingProbes = runner.warmUp(contenders,
                        contender -> "handoff warm-up (" + pairing.label + "): " + contender.label(),
                        contender -> open(contender, pairing), pair -> {
                            session(pair, settings.warmupHandoffs());
                            return CommandProbe.count(server, () -> session(pair, settings.probeHandoffs()).handoffs());
                        });
                Map<Contender, List<Session>> sessions = runner.measure(contenders, settings.rounds(),
                        (round, contender) -> "handoff round " + round + "/" + settings.rounds() + " ("
                                + pairing.label + "): " + contender.label(),
                        pair -> session(pair, settings.handoffsPerRound()));
                Map<Contender, Cell> pairingCells = new EnumMap<>(Contender.class);
                sessions.forEach((contender, list) -> pairingCells.put(contender, cell(list)));
                cells.put(pairing, pairingCells);
                probes.put(pairing, pairingProbes);
            } finally {
                runner.close();
                RedisStats.flush(server);
            }
        }
        return new Result(cells, probes, failures);
    }

    /** The two parties' clients; if the second fails to open, the first is closed. */
    private LockAdapter[] open(Contender contender, Pairing pairing) {
        List<String> uris = List.of(server.uri());
        LockAdapter first = opener.apply(contender, uris);
        if (pairing == Pairing.SAME_CLIENT) {
            return new LockAdapter[] {first, first};
        }
        try {
            return new LockAdapter[] {first, opener.apply(contender, uris)};
        } catch (RuntimeException e) {
            first.close();
            throw e;
        }
    }

    /** State the two parties share; every field is handed over with the turn semaphores or is volatile. */
    private static final class Baton {
        final Semaphore[] turn = {new Semaphore(0), new Semaphore(0)};
        final CriticalSection section = new CriticalSection();
        final Histogram latencyNanos = new Histogram(3);
        volatile long releaseCalledAt;
        boolean done;
        long handoffs;
        long notBlocked;
        long acquisitions;
    }

    /**
     * Party 0 takes the lock first. Each party then loops: wait for its turn (the other holds the
     * lock), call acquire (it blocks), measure, let the other party start waiting, hold, release.
     * A party whose acquire throws ends the session for both, and the session throws.
     */
    private Session session(LockAdapter[] pair, int handoffs) {
        String name = LockNames.next();
        LockAdapter.Handle[] locks = {pair[0].lock(name), pair[1].lock(name)};
        Baton baton = new Baton();
        long holdNanos = settings.hold().toNanos();
        Workers.run("handoff", 2, me -> {
            int other = 1 - me;
            boolean first = me == 0;
            try {
                while (true) {
                    if (!first) {
                        baton.turn[me].acquireUninterruptibly();
                        if (baton.done) {
                            return;
                        }
                    }
                    long calledAt = System.nanoTime();
                    LockAdapter.Held held = locks[me].acquire();
                    long returnedAt = System.nanoTime();
                    baton.acquisitions++;
                    baton.section.enter(held.token());
                    if (!first) {
                        baton.handoffs++;
                        long releasedAt = baton.releaseCalledAt;
                        if (calledAt - releasedAt < 0) {
                            baton.latencyNanos.recordValue(Math.max(0, returnedAt - releasedAt));
                        } else {
                            baton.notBlocked++;
                        }
                    }
                    first = false;
                    boolean last = baton.handoffs >= handoffs;
                    baton.done = last;
                    baton.turn[other].release();
                    if (!last) {
                        LockSupport.parkNanos(holdNanos);
                    }
                    baton.releaseCalledAt = System.nanoTime();
                    held.release();
                    if (last) {
                        return;
                    }
                }
            } catch (RuntimeException e) {
                // The other party may be waiting for its turn, which this one would never give: end
                // the session for it too, so the failure ends the session rather than hanging it.
                baton.done = true;
                baton.turn[other].release();
                throw e;
            }
        });
        baton.section.verify(baton.acquisitions);
        return new Session(baton.latencyNanos, baton.handoffs, baton.notBlocked);
    }

    private static Cell cell(List<Session> sessions) {
        Histogram all = new Histogram(3);
        List<Double> p50 = new ArrayList<>();
        List<Double> p99 = new ArrayList<>();
        long notBlocked = 0;
        for (Session session : sessions) {
            all.add(session.latencyNanos());
            p50.add((double) session.latencyNanos().getValueAtPercentile(50));
            p99.add((double) session.latencyNanos().getValueAtPercentile(99));
            notBlocked += session.notBlocked();
        }
        return new Cell(all, p50, p99, notBlocked);
    }
}
