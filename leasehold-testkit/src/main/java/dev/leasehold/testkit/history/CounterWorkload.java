package dev.leasehold.testkit.history;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.StaleTokenException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Holders that read a {@link CounterResource} under a lock, confirm their lease, sometimes pause
 * (a simulated GC pause, longer than the lease), then write back. This is the race fencing exists
 * for: the check and the write can never be atomic on the holder's side. Each worker records its
 * critical section in the {@link History}; backend errors are counted, not fatal, since fault
 * runs break the backend on purpose.
 */
public final class CounterWorkload {

    private final List<DistributedLock> locks;
    private final CounterResource resource;
    private final History history;
    private final Duration runFor;
    private final double pauseChance;
    private final Duration pause;
    private final Duration wait;
    private final AtomicLong backendErrors = new AtomicLong();

    /**
     * @param locks       one lock object per worker (from one or several clients), all on one name
     * @param runFor      how long the workers loop
     * @param pauseChance chance that a holder pauses between its check and its write
     * @param pause       how long such a pause lasts
     */
    public CounterWorkload(List<DistributedLock> locks, CounterResource resource, History history,
                           Duration runFor, double pauseChance, Duration pause) {
        this.locks = List.copyOf(locks);
        this.resource = resource;
        this.history = history;
        this.runFor = runFor;
        this.pauseChance = pauseChance;
        this.pause = pause;
        this.wait = Duration.ofSeconds(5);
    }

    /** Runs every worker on its own thread until the time is up; returns the backend errors seen. */
    public long run() throws InterruptedException {
        long end = System.nanoTime() + runFor.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            DistributedLock lock = locks.get(i);
            String holder = "worker-" + i;
            Thread thread = new Thread(() -> loop(lock, holder, end), "counter-" + holder);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return backendErrors.get();
    }

    private void loop(DistributedLock lock, String holder, long end) {
        while (System.nanoTime() < end) {
            Lease lease;
            try {
                lease = lock.acquire(wait);
            } catch (LeaseholdException unavailable) {
                backendErrors.incrementAndGet();
                sleep(Duration.ofMillis(20));
                continue;
            }
            long acquired = System.nanoTime();
            long sent = sentAt(lock, lease, acquired);
            long claimed = acquired;
            long read;
            try {
                read = resource.read(lease.token());
            } catch (StaleTokenException refused) {
                history.hold(new Hold(holder, lease.token(), sent, acquired, acquired));
                releaseQuietly(lease);
                continue;
            }
            if (lease.isValid()) {
                claimed = System.nanoTime();
            }
            if (ThreadLocalRandom.current().nextDouble() < pauseChance) {
                sleep(pause);
            } else {
                Thread.yield();
            }
            resource.increment(holder, lease.token(), read);
            // A holder that still believes in its lease after writing claims the whole section.
            if (lease.isValid()) {
                claimed = System.nanoTime();
            }
            history.hold(new Hold(holder, lease.token(), sent, acquired, claimed));
            releaseQuietly(lease);
        }
    }

    /**
     * The send of the attempt that took the lock, the earliest moment of the grant. A lease's local
     * deadline is {@code send + ttl - drift}, and no renewal has run yet right after the acquire
     * returned, so the send can be read off {@link Lease#remaining()}.
     */
    private static long sentAt(DistributedLock lock, Lease lease, long returned) {
        long ttlMinusDrift = lock.options().ttl().minus(lock.options().drift()).toNanos();
        return Math.min(returned, returned + lease.remaining().toNanos() - ttlMinusDrift);
    }

    private void releaseQuietly(Lease lease) {
        try {
            lease.release();
        } catch (LeaseholdException unavailable) {
            backendErrors.incrementAndGet();
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
