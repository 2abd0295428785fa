package dev.leasehold.cli;

import dev.leasehold.Lease;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Watches the lease {@code run} holds and calls back once when the command must stop: either
 * when the lease reports itself lost ({@link Lease#lost()}, e.g. a renewal found another
 * holder), or a {@linkplain #marginFor(Duration) margin} before the local deadline when
 * renewals stopped succeeding (the server is paused or unreachable). The lease itself only
 * declares the loss <em>at</em> the deadline; the command must be told before it.
 *
 * <p>The check is scheduled at {@code remaining - margin} and rescheduled from the new
 * remaining time whenever a renewal moved the deadline, so a healthy lease costs one timer
 * wake-up per renewal period and no polling.
 */
final class LeaseWatch implements AutoCloseable {

    private static final Duration MIN_MARGIN = Duration.ofMillis(25);
    private static final Duration MAX_MARGIN = Duration.ofSeconds(1);

    /** Why the command must stop, and how long before the local deadline this was decided. */
    record Loss(String reason, Duration beforeDeadline) {
    }

    private final Lease lease;
    private final Duration margin;
    private final Consumer<Loss> onLoss;
    private final AtomicBoolean fired = new AtomicBoolean();
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "leasehold-lease-watch");
        thread.setDaemon(true);
        return thread;
    });

    LeaseWatch(Lease lease, Duration ttl, Consumer<Loss> onLoss) {
        this.lease = lease;
        this.margin = marginFor(ttl);
        this.onLoss = onLoss;
        // After close(), a pending check must not run; a termination already running must finish.
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * How long before the local deadline the command is stopped: a tenth of the ttl, between
     * 25 ms and 1 s. That is far more than starting {@code kill(1)} takes, and far below the two
     * thirds of the ttl that remain when a healthy renewal arrives, so it never fires by mistake.
     */
    static Duration marginFor(Duration ttl) {
        Duration tenth = ttl.dividedBy(10);
        return tenth.compareTo(MIN_MARGIN) < 0 ? MIN_MARGIN : tenth.compareTo(MAX_MARGIN) > 0 ? MAX_MARGIN : tenth;
    }

    void start() {
        // lost() callbacks run on the client's renewal thread: hand off, never block it.
        lease.lost().thenAccept(lost -> {
            try {
                timer.execute(() -> fire(new Loss(lost.getMessage(), Duration.ZERO)));
            } catch (RejectedExecutionException closed) {
                // the command already exited and the watch was closed: nothing left to stop
            }
        });
        schedule(lease.remaining().minus(margin));
    }

    private void check() {
        Duration left = lease.remaining();
        if (left.compareTo(margin) <= 0) {
            fire(new Loss("lease on '" + lease.lockName() + "' (token " + lease.token()
                    + ") was not renewed in time", left));
        } else {
            schedule(left.minus(margin));
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
