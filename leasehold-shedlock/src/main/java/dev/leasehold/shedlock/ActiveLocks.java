package dev.leasehold.shedlock;

import dev.leasehold.Lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Leasehold locks taken on each thread, innermost last: ShedLock runs a task on the thread that
 * called {@code lock()} and unlocks it there ({@code LockAssert} and {@code LockExtender} keep their
 * own thread-local stacks the same way), so the task finds its lease here.
 *
 * <p>A lock unlocked or extended on another thread leaves its entry behind on the locking thread;
 * such entries are inactive and are dropped whenever that thread's stack is next read or changed.
 */
final class ActiveLocks {

    private static final ThreadLocal<List<LeaseholdSimpleLock>> LOCKS = new ThreadLocal<>();

    private ActiveLocks() {
    }

    static void push(LeaseholdSimpleLock lock) {
        List<LeaseholdSimpleLock> locks = LOCKS.get();
        if (locks == null) {
            locks = new ArrayList<>();
            LOCKS.set(locks);
        }
        locks.removeIf(entry -> !entry.isActive());
        locks.add(lock);
    }

    /** Puts {@code next} where {@code previous} was on this thread's stack, if it is there. */
    static void replace(LeaseholdSimpleLock previous, LeaseholdSimpleLock next) {
        List<LeaseholdSimpleLock> locks = LOCKS.get();
        if (locks != null) {
            int index = locks.lastIndexOf(previous);
            if (index >= 0) {
                locks.set(index, next);
            }
        }
    }

    static void remove(LeaseholdSimpleLock lock) {
        List<LeaseholdSimpleLock> locks = LOCKS.get();
        if (locks != null) {
            locks.remove(lock);
            prune(locks);
        }
    }

    /** The lease of the innermost lock still active on this thread. */
    static Optional<Lease> current() {
        List<LeaseholdSimpleLock> locks = LOCKS.get();
        if (locks == null) {
            return Optional.empty();
        }
        prune(locks);
        return locks.isEmpty() ? Optional.empty() : Optional.of(locks.get(locks.size() - 1).lease());
    }

    private static void prune(List<LeaseholdSimpleLock> locks) {
        locks.removeIf(entry -> !entry.isActive());
        if (locks.isEmpty()) {
            LOCKS.remove();
        }
    }
}
