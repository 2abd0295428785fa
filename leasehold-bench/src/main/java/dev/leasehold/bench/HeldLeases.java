package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Many leases on fresh names, acquired by several threads in parallel and held until
 * {@link #releaseAll()}. Each thread releases the leases it acquired: Redisson's locks belong to
 * the thread that took them. The threads only park in between, so they add no CPU to a window.
 * A release that fails (Redisson's {@code unlock} throws for a lock that lapsed meanwhile) is
 * counted, not thrown: a lapsed lease is a finding of the run, reported with the others.
 */
final class HeldLeases {

    /** Names checked with one {@code EXISTS} each: long enough to amortise a call, short enough not to stall the server. */
    private static final int EXISTS_CHUNK = 5_000;

    private final List<ArrayList<LockAdapter.Held>> perThread = new ArrayList<>();
    private final List<ArrayList<String>> namesPerThread = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch released;
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final AtomicLong releaseFailures = new AtomicLong();
    private final double acquireSeconds;

    private HeldLeases(LockAdapter adapter, int leases, int threads) {
        CountDownLatch acquired = new CountDownLatch(threads);
        released = new CountDownLatch(threads);
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int share = leases / threads + (t < leases % threads ? 1 : 0);
            ArrayList<LockAdapter.Held> mine = new ArrayList<>(share);
            ArrayList<String> names = new ArrayList<>(share);
            perThread.add(mine);
            namesPerThread.add(names);
            Thread thread = new Thread(() -> hold(adapter, share, mine, names, acquired), "held-leases-" + t);
            thread.setDaemon(true);
            thread.start();
        }
        await(acquired);
        acquireSeconds = (System.nanoTime() - start) / 1e9;
        if (failure.get() != null) {
            releaseAll();
        }
    }

    /**
     * {@code leases} leases on fresh names ({@link LockNames}), taken by {@code threads} threads.
     *
     * @throws RuntimeException what an acquire threw (the leases taken so far are released)
     */
    static HeldLeases acquire(LockAdapter adapter, int leases, int threads) {
        return new HeldLeases(adapter, leases, threads);
    }

    private void hold(LockAdapter adapter, int share, ArrayList<LockAdapter.Held> mine, ArrayList<String> names,
                      CountDownLatch acquired) {
        try {
            for (int i = 0; i < share; i++) {
                String name = LockNames.next();
                mine.add(adapter.lock(name).acquire());
                names.add(name);
            }
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        } finally {
            acquired.countDown();
        }
        await(release);
        for (LockAdapter.Held held : mine) {
            try {
                held.release();
            } catch (RuntimeException e) {
                releaseFailures.incrementAndGet();
            }
        }
        // The leases are over: nothing of them stays reachable from here, so a heap figure taken
        // after the release shows what the client kept, not what the harness did.
        mine.clear();
        mine.trimToSize();
        names.clear();
        names.trimToSize();
        released.countDown();
    }

    /** Seconds from the first acquire to the last. */
    double acquireSeconds() {
        return acquireSeconds;
    }

    /**
     * The leases' lock keys that exist on {@code server} now, counted by {@code EXISTS} in chunks (no
     * script, so a server with many keys is never blocked for long). Both libraries keep a lock key per
     * lease under its name (Leasehold a string, Redisson a hash).
     */
    long keysOn(RedisServer server) {
        long existing = 0;
        for (List<String> names : namesPerThread) {
            for (int from = 0; from < names.size(); from += EXISTS_CHUNK) {
                List<String> chunk = names.subList(from, Math.min(names.size(), from + EXISTS_CHUNK));
                String[] command = new String[chunk.size() + 1];
                command[0] = "EXISTS";
                for (int i = 0; i < chunk.size(); i++) {
                    command[i + 1] = chunk.get(i);
                }
                existing += (Long) server.command(command);
            }
        }
        return existing;
    }

    /**
     * Leases the client itself no longer counts as held ({@link LockAdapter.Held#validLocally()}),
     * or -1 where the library keeps no local lease state.
     */
    long lostLocally() {
        long lost = 0;
        for (List<LockAdapter.Held> mine : perThread) {
            for (LockAdapter.Held held : mine) {
                var valid = held.validLocally();
                if (valid.isEmpty()) {
                    return -1;
                }
                lost += valid.get() ? 0 : 1;
            }
        }
        return lost;
    }

    /**
     * Every thread releases its leases and forgets them; returns once all are released.
     *
     * @return the releases that threw
     * @throws RuntimeException what an acquire threw, if one did
     */
    long releaseAll() {
        release.countDown();
        await(released);
        RuntimeException error = failure.get();
        if (error != null) {
            throw error;
        }
        return releaseFailures.get();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while leases were taken or released", e);
        }
    }
}
