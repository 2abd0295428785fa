package dev.leasehold.cli;

import dev.leasehold.Lease;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Keeps a {@link Lifeline}'s deadlines in step with the lease, so that the lifeline stops the
 * command by itself if leasehold cannot: after each renewal that moved the lease's deadline, it
 * writes the new times to the lifeline. If the JVM pauses, nothing is written, and the lifeline
 * acts on the last times it was given.
 *
 * <p>The lease has no renewal callback, so this polls its deadline, more often as the time the
 * lifeline would send SIGTERM draws near: a quarter of the time left before it, at least every
 * 10 ms. A renewal, sent when two thirds of the ttl are left, is seen well before that time,
 * and a healthy lease costs a handful of wake-ups per renewal.
 *
 * <p>The lifeline acts on {@link LeaseWatch}'s schedule, a little later, so that it is the
 * backstop and never the first to stop a command whose lease is healthy: SIGTERM a
 * {@linkplain LeaseWatch#marginFor(Duration) margin} after LeaseWatch would send it, SIGKILL
 * half a margin before the deadline, which is half a margin after LeaseWatch's. Either way the
 * group is dead by the deadline. Once leasehold has sent SIGTERM itself (lease loss or a
 * forwarded signal), the lifeline is told to send only SIGKILL: a command that handles SIGTERM
 * gets one, not a second that many programs take as "quit now".
 */
final class LifelineFeed implements AutoCloseable {

    private static final long MIN_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Deadlines closer than this to the last ones written are not worth a write. */
    private static final long MIN_MOVE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Lifeline lifeline;
    private final Supplier<Lifeline.Deadlines> deadlines;
    /** Guarded by this. */
    private Lifeline.Deadlines written;
    /** Guarded by this. */
    private boolean termSent;
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "leasehold-lifeline-feed");
        thread.setDaemon(true);
        return thread;
    });

    /** @param written the deadlines the lifeline was given before the command started */
    LifelineFeed(Lifeline lifeline, Supplier<Lifeline.Deadlines> deadlines, Lifeline.Deadlines written) {
        this.lifeline = lifeline;
        this.deadlines = deadlines;
        this.written = written;
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * The lifeline's deadlines for {@code lease}, computed when asked, on the schedule described
     * above. A lost lease has no time left: its deadlines are past.
     */
    static Supplier<Lifeline.Deadlines> following(Lease lease, Duration ttl, Duration grace) {
        long margin = LeaseWatch.marginFor(ttl).toNanos();
        long stopAhead = LeaseWatch.stopAheadFor(ttl, grace).toNanos();
        return () -> {
            long deadline = System.nanoTime() + lease.remaining().toNanos();
            return new Lifeline.Deadlines(deadline - stopAhead + margin, deadline - margin / 2);
        };
    }

    void start() {
        schedule();
    }

    /**
     * Leasehold is about to send SIGTERM itself: from now on the lifeline only sends SIGKILL, at
     * the times it would have anyway.
     */
    synchronized void sigtermSent() {
        if (termSent) {
            return;
        }
        termSent = true;
        try {
            Lifeline.Deadlines killOnly = killOnly(written);
            lifeline.enforce(killOnly);
            written = killOnly;
        } catch (RuntimeException e) {
            // The clock could not be read: a second SIGTERM is the worst that follows.
        }
    }

    private synchronized void check() {
        try {
            Lifeline.Deadlines next = termSent ? killOnly(deadlines.get()) : deadlines.get();
            // A deadline already past (a lost lease has no time left) adds nothing to the last one.
            if (next.killAtNanos() - written.killAtNanos() >= MIN_MOVE_NANOS
                    && next.killAtNanos() - System.nanoTime() > 0) {
                lifeline.enforce(next);
                written = next;
            }
        } catch (RuntimeException e) {
            // The clock could not be read: the lifeline keeps the last deadlines, which is safe.
        }
        schedule();
    }

    private static Lifeline.Deadlines killOnly(Lifeline.Deadlines deadlines) {
        return new Lifeline.Deadlines(deadlines.killAtNanos(), deadlines.killAtNanos());
    }

    private synchronized void schedule() {
        long untilTerm = written.termAtNanos() - System.nanoTime();
        try {
            timer.schedule(this::check, Math.max(MIN_POLL_NANOS, untilTerm / 4), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            // closed meanwhile
        }
    }

    /** Stops writing; the lifeline keeps the last deadlines it was given. */
    @Override
    public void close() {
        timer.shutdown(); // never shutdownNow(): nothing here should be interrupted mid-write
    }
}
