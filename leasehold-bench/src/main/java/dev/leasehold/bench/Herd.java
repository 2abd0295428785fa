package dev.leasehold.bench;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A herd on one lock name: {@code waiters + 1} threads, thread i on client {@code i % clients},
 * each looping acquire, hold, release. Every release finds exactly {@code waiters} threads
 * blocked in acquire: the holder releases only once all the others have called acquire, and a
 * thread that released calls acquire again only after another thread's grant (so every grant
 * is a handoff to a waiting thread, never a thread re-taking the lock it just released).
 *
 * <p>The run is cut by {@link Step}s that the holder of the moment runs while it holds the lock
 * and every other thread is inside acquire: a quiet point, where the herd's counters can be read
 * without a thread half-way through a step of the harness. The steps' delays are measured from
 * the previous step (the first from the start); after the last step the threads drain (each
 * releases at once after its next grant) and {@link #run} returns.
 *
 * <p>The harness waits on its own monitors ({@code Object.wait}), never with {@code LockSupport}:
 * an unpark aimed at a harness wait that landed while the thread was inside the library would wake
 * the library's park for nothing and count as a wake-up of the library. The harness's own waits
 * are counted, so {@link #libraryWaits()} can leave them out.
 */
final class Herd {

    /** Something the holder does at a quiet point, {@code delay} after the previous step. */
    record Step(Duration delay, Runnable action) {
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final LockAdapter.Handle[] handles;
    private final int waiters;
    private final List<Step> steps;
    private final AtomicLong grants = new AtomicLong();
    private final AtomicInteger inAcquire = new AtomicInteger();
    private final AtomicLongArray harnessWaits;
    private final long[] threadIds;
    private final Object herdGate = new Object();
    private final Object grantGate = new Object();
    private final CriticalSection section = new CriticalSection();
    private final Histogram handoffNanos = new Histogram(3);
    private volatile boolean recording;
    private volatile boolean stopping;
    private volatile long releaseCalledAt;
    /** Only the holder reads and writes these, under the lock. */
    private int nextStep;
    private long lastStepAt;

    /**
     * @param handles one handle on the same lock name per client
     * @param waiters threads blocked in acquire at every release (the herd runs {@code waiters + 1} threads)
     * @param steps   the quiet points, in order
     */
    Herd(List<LockAdapter.Handle> handles, int waiters, List<Step> steps) {
        if (waiters < 1) {
            throw new IllegalArgumentException("a herd needs at least 1 waiter, got " + waiters);
        }
        this.handles = handles.toArray(LockAdapter.Handle[]::new);
        this.waiters = waiters;
        this.steps = List.copyOf(steps);
        this.harnessWaits = new AtomicLongArray(waiters + 1);
        this.threadIds = new long[waiters + 1];
    }

    /**
     * Runs the herd through every step and the drain.
     *
     * @throws IllegalStateException if a thread failed (its error as the cause) or two holders overlapped
     */
    void run() {
        lastStepAt = System.nanoTime();
        Workers.run("herd", waiters + 1, me -> {
            try {
                loop(me);
            } catch (RuntimeException e) {
                // The others may wait for this thread (the holder for the herd, a thread for the
                // next grant): stop the herd so that they drain instead of hanging.
                stop();
                throw e;
            }
        });
        section.verify(grants.get());
    }

    /** Grants so far. Exact at a quiet point. */
    long grants() {
        return grants.get();
    }

    /** Handoffs recorded while {@link #record} was on: release call to the next grant, ns. */
    Histogram handoffNanos() {
        return handoffNanos;
    }

    /** Whether handoffs are recorded from now on. */
    void record(boolean on) {
        recording = on;
    }

    /**
     * How many times the herd's threads waited (parked or {@code Object.wait}ed) so far inside the
     * lock library (acquire and release), the harness's own waits left out: {@link ThreadInfo#getWaitedCount()}
     * summed over the threads. Exact at a quiet point.
     */
    long libraryWaits() {
        long total = 0;
        for (ThreadInfo info : THREADS.getThreadInfo(threadIds)) {
            if (info != null) {
                total += info.getWaitedCount();
            }
        }
        for (int i = 0; i < harnessWaits.length(); i++) {
            total -= harnessWaits.get(i);
        }
        return total;
    }

    private void loop(int me) {
        threadIds[me] = Thread.currentThread().getId();
        LockAdapter.Handle handle = handles[me % handles.length];
        while (true) {
            if (inAcquire.incrementAndGet() >= waiters) {
                synchronized (herdGate) {
                    herdGate.notifyAll();
                }
            }
            LockAdapter.Held held = handle.acquire();
            long grantedAt = System.nanoTime();
            inAcquire.decrementAndGet();
            long releasedAt = releaseCalledAt;
            section.enter(held.token());
            long grant = grants.incrementAndGet();
            if (recording && grant > 1) {
                handoffNanos.recordValue(Math.max(0, grantedAt - releasedAt));
            }
            synchronized (grantGate) {
                grantGate.notifyAll();
            }
            if (!stopping) {
                awaitHerd(me);
                runDueStep();
            }
            releaseCalledAt = System.nanoTime();
            held.release();
            if (stopping || !awaitNextGrant(me, grant)) {
                return;
            }
        }
    }

    /** Waits until every other thread is inside acquire (or the herd stops). */
    private void awaitHerd(int me) {
        synchronized (herdGate) {
            while (inAcquire.get() < waiters && !stopping) {
                harnessWaits.incrementAndGet(me);
                waitOn(herdGate);
            }
        }
    }

    /** Waits until a grant after {@code grant}; false if the herd stopped meanwhile. */
    private boolean awaitNextGrant(int me, long grant) {
        synchronized (grantGate) {
            while (grants.get() == grant && !stopping) {
                harnessWaits.incrementAndGet(me);
                waitOn(grantGate);
            }
        }
        return !stopping;
    }

    private void runDueStep() {
        if (nextStep == steps.size()) {
            return;
        }
        Step step = steps.get(nextStep);
        long now = System.nanoTime();
        if (now - lastStepAt < step.delay().toNanos()) {
            return;
        }
        step.action().run();
        nextStep++;
        lastStepAt = System.nanoTime();
        if (nextStep == steps.size()) {
            stop();
        }
    }

    private void stop() {
        stopping = true;
        synchronized (herdGate) {
            herdGate.notifyAll();
        }
        synchronized (grantGate) {
            grantGate.notifyAll();
        }
    }

    private static void waitOn(Object gate) {
        try {
            gate.wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("herd thread interrupted", e);
        }
    }
}
