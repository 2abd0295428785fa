package dev.leasehold.bench;

import java.util.EnumMap;
import java.util.Map;

/**
 * The clients a contended or handoff workload holds open, per contender, in the order its threads
 * (or the two parties) use them, and the contenders whose cells failed. A client may serve several
 * threads; it is closed once. A failed contender's clients are closed at once, so that it holds no
 * lock the next contenders need.
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

    /** Keeps {@code clients} as {@code contender}'s until it fails or this closes; returns them. */
    LockAdapter[] put(Contender contender, LockAdapter[] clients) {
        open.put(contender, clients);
        return clients;
    }

    /** {@code contender}'s clients, or null if it failed. */
    LockAdapter[] get(Contender contender) {
        return open.get(contender);
    }

    /** Whether {@code contender}'s cell failed. */
    boolean failed(Contender contender) {
        return failures.containsKey(contender);
    }

    /** Records {@code contender}'s failure with {@code error}, says so, and closes its clients now. */
    void fail(Contender contender, RuntimeException error) {
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
