package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.StaleTokenException;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.Hold;
import dev.leasehold.testkit.history.Write;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The holder a fault scenario aims at: it took its lease before the fault and keeps working under it
 * (read, pause 20 ms, write back plus one) for as long as {@link Lease#isValid()} says so, even when
 * the guard refuses it (its claim is what the lease tells it, not what the guard knows); then it
 * sends one last write with its old token, the write a holder that checked before a stall sends
 * after it, which the guard must refuse once a newer holder wrote. Its critical section goes into
 * the history like every contender's; it also remembers the last local deadline it saw and when
 * {@code lost()} completed.
 */
final class PinnedHolder {

    private final Lease lease;
    private final CounterResource resource;
    private final History history;
    private final long sentNanos;
    private final long acquiredNanos;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final CompletableFuture<Long> lostAt;
    private final Thread thread;
    private volatile long lastDeadlineNanos;
    private volatile long claimedUntilNanos;

    PinnedHolder(Lease lease, CounterResource resource, History history, long sentNanos, long acquiredNanos) {
        this.lease = lease;
        this.resource = resource;
        this.history = history;
        this.sentNanos = sentNanos;
        this.acquiredNanos = acquiredNanos;
        this.claimedUntilNanos = acquiredNanos;
        this.lostAt = lease.lost().toCompletableFuture().thenApply(reason -> System.nanoTime());
        this.thread = new Thread(this::work, "pinned-holder");
    }

    PinnedHolder start() {
        thread.start();
        return this;
    }

    /** Stops working (if still valid), waits for the thread, and records the critical section. */
    Hold finish() throws InterruptedException {
        stop.set(true);
        thread.join();
        Hold hold = new Hold("pinned", lease.token(), sentNanos, acquiredNanos, claimedUntilNanos);
        history.hold(hold);
        try {
            lease.release();
        } catch (LeaseholdException unreachable) {
            // its key expires on its own
        }
        return hold;
    }

    /** The last write, with the old token, once the lease is lost (call after a newer holder wrote). */
    void lateWrite() {
        try {
            long read = resource.read(lease.token());
            resource.increment("pinned", lease.token(), read);
        } catch (StaleTokenException refused) {
            history.write(new Write("pinned", lease.token(), false, -1, -1));
        }
    }

    private void work() {
        while (!stop.get()) {
            long now = System.nanoTime();
            if (!lease.isValid()) {
                return;
            }
            lastDeadlineNanos = now + lease.remaining().toNanos();
            claimedUntilNanos = now;
            try {
                long read = resource.read(lease.token());
                sleep(20);
                resource.increment("pinned", lease.token(), read);
            } catch (StaleTokenException refused) {
                // The guard knows better, but a holder goes on believing what its lease says.
                sleep(20);
            }
            if (lease.isValid()) {
                claimedUntilNanos = System.nanoTime();
            }
        }
    }

    long token() {
        return lease.token();
    }

    boolean isValid() {
        return lease.isValid();
    }

    /** When {@code lost()} completed, if it did. */
    CompletableFuture<Long> lostAt() {
        return lostAt;
    }

    /** The local deadline the holder last saw while its lease was valid. */
    long lastDeadlineNanos() {
        return lastDeadlineNanos;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
