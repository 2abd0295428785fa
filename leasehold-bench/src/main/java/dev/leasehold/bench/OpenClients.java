package dev.leasehold.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The clients a contended or handoff workload holds open, per contender, in the order its threads
 * (or the two parties) use them, and the contenders whose cells failed. A contender fails when
 * opening its clients, its warm-up or one of its measurements throws; the workload goes on with
 * the others. A failed contender's clients are closed at once, so that it holds no lock the next
 * contenders need. A client may serve several threads; it is closed once.
 */
final class OpenClients implements AutoCloseable {

    private final Map<Contender, LockAdapter[]> open = new EnumMap<>(Contender.class);
    private final Map<Contender, CellFailure> failures = new EnumMap<>(Contender.class);
    private final Progress progress;
    private final String section;

    /** {@code section} begins each failure's progress line, e.g. {@code "handoff (separate clients)"}. */
    OpenClients(Progress progress, String section) {
        this.progress = progress;
        this.section = section;
    }

    /**
     * Opens {@code contender}'s clients with {@code opener} and keeps them until it fails or this
     * closes, then puts what {@code warmUp} makes of them (the warm-up, then a probe) in
     * {@code results}. If either throws, records the failure instead.
     */
    <T> void warmUp(Contender contender, Supplier<LockAdapter[]> opener, Function<LockAdapter[], T> warmUp,
                    Map<Contender, T> results) {
        try {
            LockAdapter[] clients = opener.get();
            open.put(contender, clients);
            results.put(contender, warmUp.apply(clients));
        } catch (RuntimeException e) {
            fail(contender, e);
        }
    }

    /**
     * Adds one measurement of {@code contender}'s clients to its list in {@code measured}. If it
     * throws, records the failure and drops the contender's measurements: a failed contender gets
     * no cell, only its failure.
     */
    <M> void measure(Contender contender, Function<LockAdapter[], M> measure, Map<Contender, List<M>> measured) {
        try {
            measured.computeIfAbsent(contender, c -> new ArrayList<>()).add(measure.apply(open.get(contender)));
        } catch (RuntimeException e) {
            measured.remove(contender);
            fail(contender, e);
        }
    }

    /** Whether {@code contender}'s cell failed. */
    boolean failed(Contender contender) {
        return failures.containsKey(contender);
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

    /** The failures so far, by contender; the map goes on filling as contenders fail. */
    Map<Contender, CellFailure> failures() {
        return failures;
    }

    /** Closes the clients of every contender still open. */
    @Override
    public void close() {
        open.values().forEach(OpenClients::closeEach);
    }

    private static void closeEach(LockAdapter[] clients) {
        for (int i = 0; i < clients.length; i++) {
            if (i == 0 || clients[i] != clients[0]) {
                clients[i].close();
            }
        }
    }
}
