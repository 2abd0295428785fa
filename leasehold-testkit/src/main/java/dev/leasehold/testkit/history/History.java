package dev.leasehold.testkit.history;

import java.util.ArrayList;
import java.util.List;

/**
 * What happened during a run, recorded by the workload's threads: every critical section
 * ({@link Hold}) and every write attempted on the resource ({@link Write}). Thread-safe.
 */
public final class History {

    private final List<Hold> holds = new ArrayList<>();
    private final List<Write> writes = new ArrayList<>();

    public synchronized void hold(Hold hold) {
        holds.add(hold);
    }

    /** Call from inside the resource's atomic section, so list order is admission order. */
    public synchronized void write(Write write) {
        writes.add(write);
    }

    public synchronized List<Hold> holds() {
        return List.copyOf(holds);
    }

    public synchronized List<Write> writes() {
        return List.copyOf(writes);
    }
}
