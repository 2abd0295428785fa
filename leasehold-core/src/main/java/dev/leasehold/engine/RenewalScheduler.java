package dev.leasehold.engine;

import dev.leasehold.spi.LockProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashSet;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one timer thread of a client. It drives every lease's renewal and deadline check, and the
 * re-check timers of waiters. Tasks only send asynchronous calls and never block, so one thread
 * keeps thousands of leases alive; renewals that fall due together go out as one batch, pipelined
 * and flushed once.
 */
final class RenewalScheduler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RenewalScheduler.class);
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final ScheduledThreadPoolExecutor executor;
    private record Send(Runnable task, LockProtocol protocol) {
    }

    private final Queue<Send> batch = new ConcurrentLinkedQueue<>();
    private final ConcurrentHashMap<Long, TimerSlot> slots = new ConcurrentHashMap<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();

    RenewalScheduler() {
        String name = "leasehold-renewal-" + CLIENTS.incrementAndGet();
        executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        // Cancelled renewal ticks must not pile up in the queue until their due time.
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** A scheduled task that can still be called off. */
    interface Timer {
        void cancel();
    }

    /**
     * Runs {@code task} at {@code atNanos}, a {@link System#nanoTime()} on the client's renewal
     * grid, in one timer event with every other task due at that instant.
     */
    Timer scheduleOnGrid(Runnable task, long atNanos) {
        TimerSlot slot = slots.computeIfAbsent(atNanos, at -> {
            TimerSlot fresh = new TimerSlot();
            executor.schedule(() -> fire(at), at - System.nanoTime(), TimeUnit.NANOSECONDS);
            return fresh;
        });
        if (!slot.add(task)) {
            executor.execute(task);
            return () -> { };
        }
        return () -> slot.remove(task);
    }

    private void fire(long atNanos) {
        TimerSlot slot = slots.remove(atNanos);
        if (slot != null) {
            slot.fire().forEach(RenewalScheduler::runIsolated);
        }
    }

    /**
     * Runs one task of a shared timer event or batch: a task that throws is logged and must not
     * keep the other leases' ticks in the same event from running.
     */
    private static void runIsolated(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException failure) {
            LOG.error("A renewal task failed; the other leases' tasks still run", failure);
        }
    }

    /** Runs {@code task} after {@code delayNanos}; the returned future cancels it. */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    /**
     * Runs {@code send} after every other task that is due now, together with every send queued
     * meanwhile, then flushes each protocol the batch used once: renewals that fall due together
     * go to each backend back to back and are flushed with one write.
     */
    void batch(Runnable send, LockProtocol protocol) {
        batch.add(new Send(send, protocol));
        if (drainScheduled.compareAndSet(false, true)) {
            executor.execute(this::drain);
        }
    }

    private void drain() {
        drainScheduled.set(false);
        Set<LockProtocol> used = new LinkedHashSet<>();
        Send send;
        while ((send = batch.poll()) != null) {
            runIsolated(send.task());
            used.add(send.protocol());
        }
        used.forEach(protocol -> runIsolated(protocol::flushRenewals));
    }

    /** A future completed after {@code delayNanos}; cancelling it cancels the timer. */
    CompletableFuture<Void> delay(long delayNanos) {
        CompletableFuture<Void> timer = new CompletableFuture<>();
        ScheduledFuture<?> task = schedule(() -> timer.complete(null), delayNanos);
        timer.whenComplete((ignored, error) -> task.cancel(false));
        return timer;
    }

    /** Tasks waiting to run: renewal ticks and waiter timers (a grid slot's timer counts its tasks). */
    int pendingTasks() {
        int onGrid = slots.values().stream().mapToInt(TimerSlot::size).sum();
        return Math.max(0, executor.getQueue().size() - slots.size()) + onGrid;
    }

    @Override
    public void close() {
        // Queued immediate tasks (a batch being drained) still run; timers are dropped.
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
