package dev.leasehold.engine;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one timer thread of a client. It drives every lease's renewal and deadline check, and the
 * re-check timers of waiters. Tasks only send asynchronous calls and never block, so one thread
 * keeps thousands of leases alive. Lease ticks that fall at one instant of the renewal grid run in
 * one timer event, and the renewals they start leave as one {@link SentRound} per protocol, with
 * one timer bounding the round rather than one per lease.
 */
final class RenewalScheduler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RenewalScheduler.class);
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final ScheduledThreadPoolExecutor executor;
    private final ConcurrentHashMap<Long, TimerSlot> slots = new ConcurrentHashMap<>();
    /**
     * The slot a tick was queued in last: the ticks of one event almost all move on to the same
     * instant, which then costs no map lookup (and no boxed key) per lease.
     */
    private volatile TimerSlot recent;
    /** Rounds' timers waiting in the executor: no lease's tick nor a waiter's, so not pending tasks. */
    private final AtomicInteger roundTimers = new AtomicInteger();

    RenewalScheduler() {
        String name = "leasehold-renewal-" + CLIENTS.incrementAndGet();
        executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        // Cancelled deadline checks and answered rounds' timers must not pile up until their due time.
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** What the grid runs: one lease's tick ({@link Renewal}). */
    interface GridTick {

        /** Remembers {@code slot} as the one this tick is due in; called before it is added there. */
        void queuedIn(TimerSlot slot);

        /** Whether this tick is still due in {@code slot}: it may have moved or stopped since it was queued. */
        boolean isDueIn(TimerSlot slot);

        /**
         * Runs the tick on the timer thread at {@code nowNanos}, the event's start; renewals it
         * starts join {@code rounds}, which leave after the event's last tick.
         */
        void tick(long nowNanos, RenewalRounds rounds);
    }

    /**
     * Queues {@code tick} at {@code atNanos}, a {@link System#nanoTime()} on the client's renewal
     * grid, to run in one timer event with every other tick due at that instant.
     */
    void onGrid(GridTick tick, long atNanos) {
        TimerSlot slot = recent;
        if (slot == null || slot.atNanos() != atNanos) {
            slot = slot(atNanos);
        }
        while (true) {
            tick.queuedIn(slot);
            if (slot.add(tick)) {
                recent = slot;
                return;
            }
            // The slot fired in between and left the map: the next lookup makes a fresh one, due at once.
            slot = slot(atNanos);
        }
    }

    private TimerSlot slot(long atNanos) {
        return slots.computeIfAbsent(atNanos, at -> {
            executor.schedule(() -> fire(at), at - System.nanoTime(), TimeUnit.NANOSECONDS);
            return new TimerSlot(at);
        });
    }

    private void fire(long atNanos) {
        TimerSlot slot = slots.remove(atNanos);
        if (slot == null) {
            return;
        }
        long now = System.nanoTime();
        List<GridTick> queued = slot.fire();
        RenewalRounds rounds = new RenewalRounds(this, now, queued.size());
        for (GridTick tick : queued) {
            if (tick.isDueIn(slot)) {
                runIsolated(tick, now, rounds);
            }
        }
        rounds.send();
    }

    /** Runs {@code tick} alone after {@code delayNanos}, off the grid: a lease's deadline check. */
    ScheduledFuture<?> atDeadline(GridTick tick, long delayNanos) {
        return schedule(() -> {
            long now = System.nanoTime();
            RenewalRounds rounds = new RenewalRounds(this, now, 1);
            runIsolated(tick, now, rounds);
            rounds.send();
        }, delayNanos);
    }

    /**
     * Runs one tick of a shared timer event: a tick that throws is logged and must not keep the
     * other leases' ticks in the same event from running.
     */
    private static void runIsolated(GridTick tick, long nowNanos, RenewalRounds rounds) {
        try {
            tick.tick(nowNanos, rounds);
        } catch (RuntimeException failure) {
            LOG.error("A renewal task failed; the other leases' tasks still run", failure);
        }
    }

    /** The timer of a {@link SentRound}: runs {@code timeOut} after {@code delayNanos} unless cancelled first. */
    RoundTimer roundTimer(Runnable timeOut, long delayNanos) {
        return new RoundTimer(timeOut, delayNanos);
    }

    /**
     * A round's timer, counted apart from lease ticks and waiter timers while it waits. It settles
     * once, by running or by {@link #cancel()}: the round's last answer may cancel it from within
     * its own run, where {@link ScheduledFuture#cancel} would still succeed.
     */
    final class RoundTimer {

        private final AtomicBoolean settled = new AtomicBoolean();
        private final ScheduledFuture<?> future;

        private RoundTimer(Runnable timeOut, long delayNanos) {
            roundTimers.incrementAndGet();
            future = schedule(() -> {
                if (settle()) {
                    timeOut.run();
                }
            }, delayNanos);
        }

        /** Calls the timer off, unless it ran already. */
        void cancel() {
            if (settle()) {
                future.cancel(false);
            }
        }

        private boolean settle() {
            if (!settled.compareAndSet(false, true)) {
                return false;
            }
            roundTimers.decrementAndGet();
            return true;
        }
    }

    /** Runs {@code task} after {@code delayNanos}; the returned future cancels it. */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    /** A future completed after {@code delayNanos}; cancelling it cancels the timer. */
    CompletableFuture<Void> delay(long delayNanos) {
        CompletableFuture<Void> timer = new CompletableFuture<>();
        ScheduledFuture<?> task = schedule(() -> timer.complete(null), delayNanos);
        timer.whenComplete((ignored, error) -> task.cancel(false));
        return timer;
    }

    /** Tasks waiting to run: lease ticks and waiter timers (a grid slot's timer counts its ticks still due). */
    int pendingTasks() {
        int onGrid = slots.values().stream().mapToInt(TimerSlot::due).sum();
        return Math.max(0, executor.getQueue().size() - slots.size() - roundTimers.get()) + onGrid;
    }

    @Override
    public void close() {
        // Queued immediate tasks still run; timers are dropped.
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
