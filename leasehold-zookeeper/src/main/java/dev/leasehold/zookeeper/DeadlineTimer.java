package dev.leasehold.zookeeper;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many deadlines on one timer task: tasks are kept in time order and a single task of the executor
 * is set for the earliest. Setting a task schedules nothing unless it falls before the one set;
 * cancelling one only takes it out of the order, and the timer it leaves behind runs once, finds
 * nothing due and sets itself for the next. Made for deadlines that are almost always called off
 * (a lease's ttl) and mostly set in the order they fall due: a timer per task
 * woke the timer thread every time a new task became the earliest, which on a client with one
 * call at a time is every call.
 *
 * <p>Tasks run on the executor's thread, one after the other, each isolated from the others'
 * failures; a task must not block. Once the executor is shut down, tasks set are dropped.
 */
final class DeadlineTimer {

    private static final Logger LOG = LoggerFactory.getLogger(DeadlineTimer.class);

    /** A task set on the timer. */
    interface Handle {

        /** Takes the task off the timer if it has not run yet; idempotent. */
        void cancel();
    }

    /** One task; {@code order} makes every entry distinct in the time order. */
    private final class Entry implements Handle {
        private final long atNanos;
        private final long order;
        private final Runnable task;

        private Entry(long atNanos, long order, Runnable task) {
            this.atNanos = atNanos;
            this.order = order;
            this.task = task;
        }

        @Override
        public void cancel() {
            byTime.remove(this);
        }
    }

    /** By {@link System#nanoTime()} (compared by difference, so it survives the counter's wrap), then by order. */
    private static final Comparator<Entry> BY_TIME = (a, b) -> {
        long difference = a.atNanos - b.atNanos;
        return difference != 0 ? Long.signum(difference) : Long.compare(a.order, b.order);
    };

    private final ScheduledExecutorService executor;
    private final ConcurrentNavigableMap<Entry, Boolean> byTime = new ConcurrentSkipListMap<>(BY_TIME);
    private final AtomicLong orders = new AtomicLong();
    /** The executor task set for {@link #armedAtNanos}, or null; both guarded by this. */
    private ScheduledFuture<?> armed;
    private long armedAtNanos;

    /** @param executor runs the timer task (a single-thread scheduled executor) */
    DeadlineTimer(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    /**
     * Runs {@code task} at {@code atNanos} ({@link System#nanoTime()} scale; at once if that has
     * passed) unless the returned handle cancels it first.
     */
    Handle at(long atNanos, Runnable task) {
        Entry entry = new Entry(atNanos, orders.incrementAndGet(), task);
        byTime.put(entry, Boolean.TRUE);
        armFor(atNanos);
        return entry;
    }

    /** Sets the executor task for {@code atNanos}, unless it is already set for that time or earlier. */
    private synchronized void armFor(long atNanos) {
        if (armed != null && armedAtNanos - atNanos <= 0) {
            return;
        }
        if (armed != null) {
            armed.cancel(false);
        }
        try {
            armed = executor.schedule(this::sweep, atNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
            armedAtNanos = atNanos;
        } catch (RejectedExecutionException shutDown) {
            armed = null;
        }
    }

    /**
     * Runs every task that is due, then sets the executor task for the next one, if any: also after
     * an error a task threw (which ends this sweep), so the tasks after it still run on time.
     */
    private void sweep() {
        synchronized (this) {
            armed = null;
        }
        try {
            runDue(System.nanoTime());
        } finally {
            Map.Entry<Entry, Boolean> first = byTime.firstEntry();
            if (first != null) {
                armFor(first.getKey().atNanos);
            }
        }
    }

    private void runDue(long now) {
        Map.Entry<Entry, Boolean> first;
        while ((first = byTime.firstEntry()) != null && first.getKey().atNanos - now <= 0) {
            Entry due = first.getKey();
            // Only if this sweep took it off: a cancel may have won the race.
            if (byTime.remove(due) != null) {
                try {
                    due.task.run();
                } catch (RuntimeException failure) {
                    LOG.error("A timed task failed; the others still run", failure);
                }
            }
        }
    }
}
