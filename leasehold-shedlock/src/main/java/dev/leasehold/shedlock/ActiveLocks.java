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
 * <p>Each entry is a lock's {@link Chain}: the lock and the locks its extensions returned, all of one
 * lease. An extension made on another thread (ShedLock's {@code KeepAliveLockProvider} extends from
 * its scheduler) so leaves the task's entry in place. A chain ends when its latest lock is unlocked or
 * cannot be extended; an ended entry left behind (a lock unlocked on another thread) is dropped
 * whenever its thread's stack is next read or changed.
 */
final class ActiveLocks {

    private static final ThreadLocal<List<Chain>> LOCKS = new ThreadLocal<>();

    /** One lease's ShedLock locks: the first and every extension's, until one is unlocked or cannot be extended. */
    static final class Chain {
        private final Lease lease;
        private volatile boolean ended;

        Chain(Lease lease) {
            this.lease = lease;
        }

        /** The latest lock was unlocked or could not be extended: no lock of this lease is usable any more. */
        void end() {
            ended = true;
        }
    }

    private ActiveLocks() {
    }

    static void push(Chain chain) {
        List<Chain> locks = LOCKS.get();
        if (locks == null) {
            locks = new ArrayList<>();
            LOCKS.set(locks);
        }
        locks.removeIf(ActiveLocks::inactive);
        locks.add(chain);
    }

    static void remove(Chain chain) {
        List<Chain> locks = LOCKS.get();
        if (locks != null) {
            locks.remove(chain);
            prune(locks);
        }
    }

    /** The lease of the innermost lock still active on this thread. */
    static Optional<Lease> current() {
        List<Chain> locks = LOCKS.get();
        if (locks == null) {
            return Optional.empty();
        }
        prune(locks);
        return locks.isEmpty() ? Optional.empty() : Optional.of(locks.get(locks.size() - 1).lease);
    }

    private static boolean inactive(Chain chain) {
        return chain.ended;
    }

    private static void prune(List<Chain> locks) {
        locks.removeIf(ActiveLocks::inactive);
        if (locks.isEmpty()) {
            LOCKS.remove();
        }
    }
}
