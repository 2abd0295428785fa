package dev.leasehold.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Runs the cells of a contended or handoff workload, contender by contender: opens each one's
 * clients and warms them up, then measures them round after round, and isolates a contender whose
 * clients, warm-up or measurement throws. Such a contender is recorded as failed and its clients
 * closed at once, so that it holds no lock the next contenders need; the workload goes on with the
 * others. The clients are kept per contender in the order its threads (or the two parties) use
 * them; a client that serves several threads is closed once.
 */
final class CellRunner implements AutoCloseable {

    private final Map<Contender, LockAdapter[]> open = new EnumMap<>(Contender.class);
    private final Map<Contender, CellFailure> failures = new EnumMap<>(Contender.class);
    private final Progress progress;
    private final String section;

    /** {@code section} begins each failure's progress line, e.g. {@code "handoff (separate clients)"}. */
    CellRunner(Progress progress, String section) {
        this.progress = progress;
        this.section = section;
    }

    /**
     * For each contender in turn: says {@code step} of it, opens its clients with {@code opener} and
     * keeps them, and returns what {@code warmUp} makes of them (the warm-up, then a probe), by
     * contender. A contender for which either throws is failed instead and left out.
     */
    <T> Map<Contender, T> warmUp(List<Contender> contenders, Function<Contender, String> step,
                                 Function<Contender, LockAdapter[]> opener, Function<LockAdapter[], T> warmUp) {
        Map<Contender, T> results = new EnumMap<>(Contender.class);
        for (Contender contender : contenders) {
            progress.step(step.apply(contender));
            try {
                LockAdapter[] clients = opener.apply(contender);
                open.put(contender, clients);
                results.put(contender, warmUp.apply(clients));
            } catch (RuntimeException e) {
                fail(contender, e);
            }
        }
        return results;
    }

    /**
     * Measures each contender not failed yet {@code rounds} times, in {@link Rounds#order} (rotated
     * each round), saying {@code step} of the round (from 1) and contender before each measurement;
     * returns the measurements by contender. A contender whose measurement throws is failed and its
     * measurements dropped: it gets no cell, only its failure.
     */
    <M> Map<Contender, List<M>> measure(List<Contender> contenders, int rounds,
                                        BiFunction<Integer, Contender, String> step, Function<LockAdapter[], M> measure) {
        Map<Contender, List<M>> measured = new EnumMap<>(Contender.class);
        for (int round = 0; round < rounds; round++) {
            for (Contender contender : Rounds.order(contenders, round)) {
                if (failures.containsKey(contender)) {
                    continue;
                }
                progress.step(step.apply(round + 1, contender));
                try {
                    measured.computeIfAbsent(contender, c -> new ArrayList<>()).add(measure.apply(open.get(contender)));
                } catch (RuntimeException e) {
                    measured.remove(contender);
                    fail(contender, e);
                }
            }
        }
        return measured;
    }

    /** The failures so far, by contender; the map goes on filling as contenders fail. */
    Map<Contender, CellFailure> failures() {
        return failures;
    }

    /** Closes the clients of every contender still open. */
    @Override
    public void close() {
        open.values().forEach(CellRunner::closeEach);
    }

    /** Records {@code contender}'s failure with {@code error}, says so, and closes its clients now. */
    private void fail(Contender contender, RuntimeException error) {
        CellFailure failure = CellFailure.of(contender, error);
        failures.put(contender, failure);
        progress.step(section + " " + contender.label() + " " + failure.report());
        LockAdapter[] clients = open.remove(contender);
        if (clients != null) {
            closeEach(clients);
        }
    }

    private static void closeEach(LockAdapter[] clients) {
        for (int i = 0; i < clients.length; i++) {
            if (i == 0 || clients[i] != clients[0]) {
                clients[i].close();
            }
        }
    }
}
