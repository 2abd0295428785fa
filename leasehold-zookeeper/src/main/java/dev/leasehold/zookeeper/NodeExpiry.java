package dev.leasehold.zookeeper;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The ttl of leases on a backend whose nodes live as long as the session: the client deletes a
 * lease's node itself when the ttl since the last grant or renewal has passed (after the lease's
 * local deadline, which subtracts the drift). So a fixed lease frees its lock on time, and a
 * watchdog lease whose renewals stopped frees it within its ttl, as on Redis; a client that dies
 * frees it when its session expires.
 *
 * <p>The expiries share one {@link DeadlineTimer}: most leases end long before their ttl, and a
 * timer per lease woke the timer thread on every grant whose expiry became the earliest.
 */
final class NodeExpiry {

    private record Entry(long atNanos, DeadlineTimer.Handle timer, Runnable expire) {
    }

    private final DeadlineTimer timer;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();

    NodeExpiry(ScheduledExecutorService timers) {
        this.timer = new DeadlineTimer(timers);
    }

    /**
     * Runs {@code expire} at {@code atNanos} ({@link System#nanoTime()} scale) unless cancelled or
     * moved later first; a time earlier than the one already set is ignored (never shortens).
     */
    void expireAt(String holder, long atNanos, Runnable expire) {
        entries.compute(holder, (key, current) -> {
            if (current != null) {
                if (atNanos - current.atNanos() <= 0) {
                    return current;
                }
                current.timer().cancel();
            }
            return new Entry(atNanos, timer.at(atNanos, () -> {
                // Only this expiry: a later one replaced it if the lease was renewed meanwhile.
                boolean[] expired = new boolean[1];
                entries.computeIfPresent(holder, (k, entry) -> {
                    expired[0] = entry.atNanos() == atNanos;
                    return expired[0] ? null : entry;
                });
                if (expired[0]) {
                    expire.run();
                }
            }), expire);
        });
    }

    /** Whether {@code holder} still has a pending expiry (has not expired). */
    boolean pending(String holder) {
        return entries.containsKey(holder);
    }

    /**
     * Moves every pending expiry off the timer thread, which is about to end, onto the JDK's shared
     * delay scheduler, to run at the same time: the client closes over a framework its owner keeps
     * open ({@link ZooKeeperLocks#using}), so the nodes still waiting for their expiry (a release
     * that failed) live on with the owner's session, and nothing else would delete them.
     */
    void handOver() {
        entries.forEach((holder, entry) -> {
            if (entries.remove(holder, entry)) {
                entry.timer().cancel();
                long delay = Math.max(0, entry.atNanos() - System.nanoTime());
                CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(entry.expire());
            }
        });
    }

    /** Forgets {@code holder}'s expiry (its lease was released). */
    void cancel(String holder) {
        Entry entry = entries.remove(holder);
        if (entry != null) {
            entry.timer().cancel();
        }
    }
}
