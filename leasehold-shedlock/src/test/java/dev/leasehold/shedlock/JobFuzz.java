package dev.leasehold.shedlock;

import dev.leasehold.Lease;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eight threads on two application instances run two jobs through ShedLock's own executor, each run
 * doing an unprotected read-sleep-write of its job's counter: a lock that let two runs overlap would
 * lose an increment. Each run also checks that its token exceeds the previous run's (read under the
 * lock, so unprotected as well). One thread has fewer runs to do, so the others keep competing after
 * it stopped.
 */
final class JobFuzz {

    private static final int THREADS = 8;
    private static final int RUNS = 30;
    private static final int SHORT_RUNS = 5;
    static final String LOST_INCREMENT = "runs of the job (fewer if two overlapped and lost an increment)";
    static final String TOKEN_NOT_GREATER = "runs whose token did not exceed the previous run's";

    private final LockingTaskExecutor[] instances;
    private final Duration lockAtLeastFor;

    JobFuzz(LeaseholdLockProvider first, LeaseholdLockProvider second, Duration lockAtLeastFor) {
        this.instances = new LockingTaskExecutor[] {new DefaultLockingTaskExecutor(first), new DefaultLockingTaskExecutor(second)};
        this.lockAtLeastFor = lockAtLeastFor;
    }

    void run() throws Exception {
        Job[] jobs = {new Job("fuzz-" + UUID.randomUUID()), new Job("fuzz-" + UUID.randomUUID())};
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int runs = t == 0 ? SHORT_RUNS : RUNS;
                Job job = jobs[t % 2];
                LockingTaskExecutor instance = instances[(t / 2) % 2];
                threads.add(pool.submit(() -> runAll(instance, job, runs)));
            }
            for (Future<?> thread : threads) {
                thread.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(jobs[0].counter).as(LOST_INCREMENT).isEqualTo((THREADS / 2 - 1) * RUNS + SHORT_RUNS);
        assertThat(jobs[1].counter).as(LOST_INCREMENT).isEqualTo(THREADS / 2 * RUNS);
        for (Job job : jobs) {
            assertThat(job.tokensOutOfOrder).as(TOKEN_NOT_GREATER).isZero();
        }
    }

    private void runAll(LockingTaskExecutor instance, Job job, int runs) {
        int done = 0;
        while (done < runs) {
            boolean[] ran = {false};
            instance.executeWithLock((Runnable) () -> {
                Lease lease = LeaseholdLockProvider.currentLease().orElseThrow();
                int seen = job.counter;
                if (lease.token() <= job.lastToken) {
                    job.tokensOutOfOrder++;
                }
                job.lastToken = lease.token();
                ProviderFixture.sleep(Duration.ofMillis(1));
                job.counter = seen + 1;
                ran[0] = true;
            }, job.configuration());
            if (ran[0]) {
                done++;
            } else {
                // Fires again soon, as a scheduler would, not in a busy loop that starves a 2-core machine.
                ProviderFixture.sleep(Duration.ofMillis(1));
            }
        }
    }

    private final class Job {
        private final String name;
        /** Plain fields on purpose: only the lock keeps the runs' reads and writes from interleaving. */
        private int counter;
        private long lastToken;
        private int tokensOutOfOrder;

        Job(String name) {
            this.name = name;
        }

        LockConfiguration configuration() {
            return ProviderFixture.config(name, ProviderFixture.LONG, lockAtLeastFor);
        }
    }
}
