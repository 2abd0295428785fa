package dev.leasehold.engine;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The state machine of one lease: its {@link LeasePhase} and its local deadline, changed only by
 * compare-and-set so concurrent renewals, releases and deadline checks are ordered and each
 * transition happens at most once. Every method is lock-free and never blocks.
 *
 * <p>Validity is checked and expired in one step ({@link #checkAt}): a reader that finds a HELD
 * lease past its deadline moves it to LOST, and an extension only applies to a lease that is still
 * before its deadline. So a renewal answer that arrives after the deadline, even before any timer
 * noticed it, cannot make an invalid lease valid again.
 */
final class LeaseLifecycle {

    /** What {@link #checkAt} found. */
    enum Check {
        /** HELD and before its deadline. */
        VALID,
        /** Was HELD, but its deadline had passed: this call moved it to LOST. */
        EXPIRED_NOW,
        /** Not HELD (releasing, released or lost before this call). */
        ENDED
    }

    private record State(LeasePhase phase, long deadlineNanos) {
    }

    private final AtomicReference<State> state;

    /** A HELD lease valid until {@code deadlineNanos} (a {@link System#nanoTime()} value). */
    LeaseLifecycle(long deadlineNanos) {
        this.state = new AtomicReference<>(new State(LeasePhase.HELD, deadlineNanos));
    }

    LeasePhase phase() {
        return state.get().phase();
    }

    long deadlineNanos() {
        return state.get().deadlineNanos();
    }

    /** Whether the lease is valid at {@code nowNanos}; a HELD lease past its deadline becomes LOST here. */
    Check checkAt(long nowNanos) {
        while (true) {
            State s = state.get();
            if (s.phase() != LeasePhase.HELD) {
                return Check.ENDED;
            }
            if (nowNanos - s.deadlineNanos() < 0) {
                return Check.VALID;
            }
            if (state.compareAndSet(s, new State(LeasePhase.LOST, s.deadlineNanos()))) {
                return Check.EXPIRED_NOW;
            }
        }
    }

    /**
     * Moves the deadline later after a successful renewal. Only a HELD lease that is still before
     * its deadline at {@code nowNanos} is extended, and only forward: a renewal answer arriving
     * after a release, a loss, the deadline or a newer renewal changes nothing.
     */
    boolean extend(long newDeadlineNanos, long nowNanos) {
        while (true) {
            State s = state.get();
            if (s.phase() != LeasePhase.HELD || nowNanos - s.deadlineNanos() >= 0
                    || newDeadlineNanos - s.deadlineNanos() <= 0) {
                return false;
            }
            if (state.compareAndSet(s, new State(LeasePhase.HELD, newDeadlineNanos))) {
                return true;
            }
        }
    }

    /** HELD to LOST; true only for the call that made the transition. */
    boolean markLost() {
        return transition(LeasePhase.HELD, LeasePhase.LOST);
    }

    /** HELD to RELEASING; true only for the call that made the transition. */
    boolean beginRelease() {
        return transition(LeasePhase.HELD, LeasePhase.RELEASING);
    }

    /** RELEASING to RELEASED. */
    void finishRelease() {
        transition(LeasePhase.RELEASING, LeasePhase.RELEASED);
    }

    private boolean transition(LeasePhase from, LeasePhase to) {
        while (true) {
            State s = state.get();
            if (s.phase() != from) {
                return false;
            }
            if (state.compareAndSet(s, new State(to, s.deadlineNanos()))) {
                return true;
            }
        }
    }
}
