package dev.leasehold.cli;

import dev.leasehold.Lease;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Watches the lease {@code run} holds and calls back once when the command must stop, with the
 * time by which its process group must be dead: either when the lease reports itself lost
 * ({@link Lease#lost()}, e.g. a renewal found another holder), at once, or, when renewals stopped
 * succeeding (the server is paused or unreachable), early enough before the local deadline to
 * give the command its grace between SIGTERM and SIGKILL and still have the SIGKILL land a
 * {@linkplain #marginFor(Duration) margin} before the deadline. The lease itself only declares
 * the loss <em>at</em> the deadline; the command must be dead by then.
 *
 * <p>The check is scheduled at {@code remaining - stopAhead} and rescheduled from the new
 * remaining time whenever a renewal moved the deadline, so a healthy lease costs one timer
 * wake-up per renewal period and no polling.
 */
final class LeaseWatch implements AutoCloseable {

    private static final Duration MIN_MARGIN = Duration.ofMillis(25);
    private static final Duration MAX_MARGIN = Duration.ofSeconds(1);

    /**
     * Why the command must stop, how long before the local deadline this was decided, and when
     * (a {@link System#nanoTime()} value) the SIGKILL must go out at the latest.
     */
    record Loss(String reason, Duration beforeDeadline, long killAtNanos) {
    }

    private final Lease lease;
    private final String backend;
    private final Duration margin;
    private final Duration stopAhead;
    private final Consumer<Loss> onLoss;
    private final AtomicBoolean fired = new AtomicBoolean();
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "leasehold-lease-watch");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param grace   the time the command is given between SIGTERM and SIGKILL, if the lease leaves that much
     * @param backend where the lease lives, without credentials, for the message when renewals stop succeeding
     */
    LeaseWatch(Lease lease, Duration ttl, Duration grace, String backend, Consumer<Loss> onLoss) {
        this.lease = lease;
        this.backend = backend;
        this.margin = marginFor(ttl);
        this.stopAhead = stopAheadFor(ttl, grace);
        this.onLoss = onLoss;
        // After close(), a pending check must not run; a termination already running must finish.
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * How long before the local deadline the SIGKILL goes out: a tenth of the ttl, between
     * 25 ms and 1 s. That is far more than starting {@code kill(1)} takes.
     */
    static Duration marginFor(Duration ttl) {
        Duration tenth = ttl.dividedBy(10);
        return tenth.compareTo(MIN_MARGIN) < 0 ? MIN_MARGIN : tenth.compareTo(MAX_MARGIN) > 0 ? MAX_MARGIN : tenth;
    }

    /**
     * How long before the local deadline the SIGTERM goes out when renewals stop succeeding: the
     * grace plus the {@linkplain #marginFor(Duration) margin}, but never more than half the ttl.
     * A healthy renewal is sent when two thirds of the ttl are left and leaves a sixth of it for
     * its round trip before that cap, so the command is never stopped while its lease is fine;
     * a grace longer than what is left of the lease is shortened, never the lease stretched.
     */
    static Duration stopAheadFor(Duration ttl, Duration grace) {
        Duration wanted = grace.plus(marginFor(ttl));
        Duration cap = ttl.dividedBy(2);
        return wanted.compareTo(cap) > 0 ? cap : wanted;
    }

    void start() {
        // lost() callbacks run on the client's renewal thread: hand off, never block it.
        lease.lost().thenAccept(lost -> {
            try {
                // The lock may be someone else's already: no time is left to give.
                timer.execute(() -> fire(new Loss(lost.getMessage(), Duration.ZERO, System.nanoTime())));
            } catch (RejectedExecutionException closed) {
                // the command already exited and the watch was closed: nothing left to stop
            }
        });
        schedule(lease.remaining().minus(stopAhead));
    }

    private void check() {
        long now = System.nanoTime();
        Duration left = lease.remaining();
        if (left.compareTo(stopAhead) <= 0) {
            // A check that runs late (a paused JVM) leaves less than the grace: SIGKILL sooner.
            long killAt = now + Math.max(0, left.minus(margin).toNanos());
            fire(new Loss("lease on '" + lease.lockName() + "' (token " + lease.token()
                    + ") was not renewed in time (no renewal succeeded at " + backend
                    + "; check that it is running and reachable from this host)", left, killAt));
        } else {
            schedule(left.minus(stopAhead));
        }
    }

    private void schedule(Duration delay) {
        try {
            timer.schedule(this::check, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            // closed meanwhile
        }
    }

    private void fire(Loss loss) {
        if (fired.compareAndSet(false, true)) {
            onLoss.accept(loss);
        }
    }

    /** Stops watching; a termination already under way goes on. */
    @Override
    public void close() {
        timer.shutdown();
    }
}
