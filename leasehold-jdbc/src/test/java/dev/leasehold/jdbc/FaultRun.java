package dev.leasehold.jdbc;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.StaleTokenException;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Hold;
import dev.leasehold.testkit.history.Verdict;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One history-checked fault run: workers on several clients take one lock name, hold it (a random
 * 50-300 ms, one hold in three 1.5-3 s, longer than the 1 s ttl; always long for the workers named
 * with a given prefix) while checking {@link Lease#isValid()} (a holder stops working once its
 * lease is no longer valid), increment a fenced counter and pause 10-100 ms before the next acquire; a nemesis breaks the backend meanwhile. Besides
 * the {@link HistoryChecker}'s verdict it measures the longest overlap of two holders' valid
 * intervals and, for every lease that was lost rather than released, how late {@code lost()}
 * completed after the lease's local deadline (sampled every 5 ms from {@link Lease#remaining()}).
 */
final class FaultRun {

    /** What a run found. */
    record Result(Verdict verdict, long maxOverlapMillis, int leasesLost, long maxLostLateMillis,
                  long backendErrors, List<Hold> holds) {
        @Override
        public String toString() {
            return "overlap of valid holders " + maxOverlapMillis + " ms, " + leasesLost + " leases lost (latest "
                    + maxLostLateMillis + " ms after its local deadline), " + backendErrors + " backend errors; " + verdict;
        }
    }

    /** How long a scenario runs: 8 s, or {@code -Dfaults.minutes=N} for a soak. */
    static Duration duration() {
        long minutes = Long.getLong("faults.minutes", 0);
        return minutes > 0 ? Duration.ofMinutes(minutes) : Duration.ofSeconds(8);
    }

    private final History history = new History();
    private final CounterResource resource = new CounterResource(history, true);
    private final AtomicLong backendErrors = new AtomicLong();
    private final AtomicInteger leasesLost = new AtomicInteger();
    private final AtomicLong maxLostLateNanos = new AtomicLong(Long.MIN_VALUE);
    private final String longHolders;

    /** @param longHolders the prefix of the workers whose every hold lasts 1-3 s (the ones the nemesis cuts off) */
    FaultRun(String longHolders) {
        this.longHolders = longHolders;
    }

    /** A run where one hold in three is long, whoever holds. */
    FaultRun() {
        this(null);
    }

    /**
     * Runs one worker per lock (each named by {@code holders}) for {@code runFor} while
     * {@code nemesis} runs on its own thread; the nemesis is interrupted at the end.
     */
    Result run(List<DistributedLock> locks, List<String> holders, Duration runFor, NemesisLoop nemesis)
            throws InterruptedException {
        long end = System.nanoTime() + runFor.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            DistributedLock lock = locks.get(i);
            String holder = holders.get(i);
            threads.add(start("worker-" + holder, () -> loop(lock, holder, end)));
        }
        Thread chaos = start("nemesis", () -> {
            try {
                nemesis.run(end);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new IllegalStateException("the nemesis failed", e);
            }
        });
        for (Thread thread : threads) {
            thread.join();
        }
        chaos.interrupt();
        chaos.join();
        List<Hold> holds = history.holds();
        long late = maxLostLateNanos.get();
        return new Result(HistoryChecker.check(history), maxOverlapMillis(holds), leasesLost.get(),
                late == Long.MIN_VALUE ? 0 : TimeUnit.NANOSECONDS.toMillis(late), backendErrors.get(), holds);
    }

    /** The fault schedule, run until {@code endNanos} (or an interrupt). */
    @FunctionalInterface
    interface NemesisLoop {
        void run(long endNanos) throws Exception;
    }

    private void loop(DistributedLock lock, String holder, long end) {
        while (System.nanoTime() < end) {
            Lease lease;
            try {
                lease = lock.acquire(Duration.ofSeconds(5));
            } catch (LeaseholdException unavailable) {
                backendErrors.incrementAndGet();
                pause(20);
                continue;
            }
            long acquired = System.nanoTime();
            DeadlineWatch watch = new DeadlineWatch(lease);
            long claimed = acquired;
            try {
                long read = resource.read(lease.token());
                ThreadLocalRandom random = ThreadLocalRandom.current();
                boolean longHold = longHolders != null ? holder.startsWith(longHolders) : random.nextDouble() < 0.3;
                long holdMillis = longHold ? random.nextLong(1_500, 3_000) : random.nextLong(50, 300);
                long holdUntil = acquired + TimeUnit.MILLISECONDS.toNanos(holdMillis);
                while (System.nanoTime() < holdUntil && lease.isValid()) {
                    claimed = System.nanoTime();
                    pause(50);
                }
                resource.increment(holder, lease.token(), read);
                if (lease.isValid()) {
                    claimed = System.nanoTime();
                }
            } catch (StaleTokenException refused) {
                // a later holder's token was admitted first: the guard did its work
            }
            history.hold(new Hold(holder, lease.token(), acquired, claimed));
            if (lease.isValid()) {
                watch.stop(); // released, not lost; a lost lease's lost() may still be on its way
            }
            try {
                lease.release();
            } catch (LeaseholdException unavailable) {
                backendErrors.incrementAndGet();
            }
            pause(ThreadLocalRandom.current().nextLong(10, 100));
        }
    }

    /** Samples a lease's local deadline until it is lost (then records how late the loss came) or released. */
    private final class DeadlineWatch {
        private volatile boolean stopped;
        private volatile long deadline;

        DeadlineWatch(Lease lease) {
            deadline = System.nanoTime() + lease.remaining().toNanos();
            Thread sampler = new Thread(() -> {
                while (!stopped && lease.isValid()) {
                    deadline = Math.max(deadline, System.nanoTime() + lease.remaining().toNanos());
                    pause(5);
                }
            }, "deadline-watch");
            sampler.setDaemon(true);
            sampler.start();
            lease.lost().whenComplete((reason, error) -> {
                if (!stopped) {
                    leasesLost.incrementAndGet();
                    long late = System.nanoTime() - deadline;
                    maxLostLateNanos.accumulateAndGet(late, Math::max);
                }
            });
        }

        void stop() {
            stopped = true;
        }
    }

    /** The longest time two holds of different tokens both claimed the lock, in ms (0 if none). */
    static long maxOverlapMillis(List<Hold> holds) {
        List<Hold> sorted = new ArrayList<>(holds);
        sorted.sort(Comparator.comparingLong(Hold::acquiredNanos));
        long max = 0;
        for (int i = 0; i < sorted.size(); i++) {
            Hold a = sorted.get(i);
            for (int j = i + 1; j < sorted.size() && sorted.get(j).acquiredNanos() < a.claimedUntilNanos(); j++) {
                Hold b = sorted.get(j);
                if (b.token() != a.token()) {
                    max = Math.max(max, Math.min(a.claimedUntilNanos(), b.claimedUntilNanos()) - b.acquiredNanos());
                }
            }
        }
        return TimeUnit.NANOSECONDS.toMillis(max);
    }

    private static Thread start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.start();
        return thread;
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
