package dev.leasehold.engine;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The state machine of one lease: its {@link LeasePhase} and its local deadline, changed only by
 * compare-and-set so concurrent renewals, releases and deadline checks are ordered and each
 * transition happens at most once. Every method is lock-free and never blocks.
 */
final class LeaseLifecycle {

    private record State(LeasePhase phase, long deadlineNanos) {
    }

    private final AtomicReference<State> state = new AtomicReference<>(new State(LeasePhase.ACQUIRING, 0));

    LeasePhase phase() {
        return state.get().phase();
    }

    long deadlineNanos() {
        return state.get().deadlineNanos();
    }

    /** True while HELD and before the local deadline, read against {@code nowNanos}. */
    boolean isValidAt(long nowNanos) {
        State s = state.get();
        return s.phase() == LeasePhase.HELD && nowNanos - s.deadlineNanos() < 0;
    }

    /** ACQUIRING to HELD with the first local deadline; false if the lease was abandoned meanwhile. */
    boolean activate(long deadlineNanos) {
        return transition(LeasePhase.ACQUIRING, new State(LeasePhase.HELD, deadlineNanos));
    }

    /**
     * Moves the deadline later after a successful renewal. Only a HELD lease is extended and only
     * forward, so a renewal answer arriving after a release, a loss or a newer renewal changes nothing.
     */
    boolean extend(long newDeadlineNanos) {
        while (true) {
            State s = state.get();
            if (s.phase() != LeasePhase.HELD || newDeadlineNanos - s.deadlineNanos() <= 0) {
                return false;
            }
            if (state.compareAndSet(s, new State(LeasePhase.HELD, newDeadlineNanos))) {
                return true;
            }
        }
    }

    /** HELD to LOST; true only for the call that made the transition. */
    boolean markLost() {
        while (true) {
            State s = state.get();
            if (s.phase() != LeasePhase.HELD) {
                return false;
            }
            if (state.compareAndSet(s, new State(LeasePhase.LOST, s.deadlineNanos()))) {
                return true;
            }
        }
    }

    /** HELD or ACQUIRING to RELEASING; true only for the call that made the transition. */
    boolean beginRelease() {
        while (true) {
            State s = state.get();
            if (s.phase() != LeasePhase.HELD && s.phase() != LeasePhase.ACQUIRING) {
                return false;
            }
            if (state.compareAndSet(s, new State(LeasePhase.RELEASING, s.deadlineNanos()))) {
                return true;
            }
        }
    }

    /** RELEASING to RELEASED. */
    void finishRelease() {
        transition(LeasePhase.RELEASING, new State(LeasePhase.RELEASED, state.get().deadlineNanos()));
    }

    private boolean transition(LeasePhase from, State to) {
        while (true) {
            State s = state.get();
            if (s.phase() != from) {
                return false;
            }
            if (state.compareAndSet(s, to)) {
                return true;
            }
        }
    }
}
