package dev.leasehold.engine;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The tasks due at one instant of the renewal grid: one timer runs them all, so ten thousand
 * leases renewed each second cost a hundred timer events, not ten thousand. A task added after the
 * slot fired is refused, and its caller runs it at once instead, so none is lost.
 */
final class TimerSlot {

    private final Set<Runnable> tasks = new HashSet<>();
    private boolean fired;

    /** @return false if the slot already fired */
    synchronized boolean add(Runnable task) {
        if (fired) {
            return false;
        }
        tasks.add(task);
        return true;
    }

    synchronized void remove(Runnable task) {
        tasks.remove(task);
    }

    /** Marks the slot fired and hands over its tasks. */
    synchronized List<Runnable> fire() {
        fired = true;
        List<Runnable> due = new ArrayList<>(tasks);
        tasks.clear();
        return due;
    }

    synchronized int size() {
        return tasks.size();
    }
}
