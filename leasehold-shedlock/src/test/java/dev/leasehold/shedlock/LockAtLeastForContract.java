package dev.leasehold.shedlock;

import dev.leasehold.LockClient;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ShedLock's {@code lockAtLeastFor}, which Leasehold keeps on the server
 * ({@link dev.leasehold.LockOptions#holdAtLeast}): an early unlock leaves the lock held until then,
 * whatever becomes of the process, and frees it then.
 */
abstract class LockAtLeastForContract extends ProviderFixture {

    private static final Duration AT_LEAST = Duration.ofMillis(800);
    /**
     * Past lockAtLeastFor by this much, the lock must be free: servers expire keys by their wall clock,
     * which here ran up to ~10% apart from {@link System#nanoTime()}.
     */
    private static final Duration MARGIN = Duration.ofMillis(500);

    /** The environment a {@link JobProcessMain} needs to reach the backend under test. */
    protected abstract Map<String, String> processEnvironment();

    @Test
    void anEarlyUnlockKeepsTheLockUntilLockAtLeastForThenFreesIt() {
        long before = System.nanoTime();
        taken(first.lock(config(name, LONG, AT_LEAST))).unlock();
        assertThat(first.lock(config(name))).as("the instance that unlocked").isEmpty();
        assertThat(second.lock(config(name))).as("another instance").isEmpty();
        sleepUntil(before, AT_LEAST.plus(MARGIN));
        taken(second.lock(config(name))).unlock();
    }

    @Test
    void anUnlockAfterLockAtLeastForFreesTheLockAtOnce() {
        SimpleLock lock = taken(first.lock(config(name, LONG, Duration.ofMillis(200))));
        sleep(Duration.ofMillis(300));
        lock.unlock();
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void anEarlyUnlockKeepsTheLockEvenIfTheProcessIsKilledRightAfter() throws Exception {
        String job = "shedlock-process-" + UUID.randomUUID();
        Duration atLeast = Duration.ofSeconds(2);
        long[] sent = JobProcess.unlockThenDie(processEnvironment(), job, LONG, atLeast);
        // The process is dead (killed right after its unlock, well within lockAtLeastFor): the server alone keeps it.
        assertThat(second.lock(config(job))).as("kept by the server after the process died").isEmpty();
        sleepUntil(sent[1], atLeast.plus(MARGIN));
        taken(second.lock(config(job))).unlock();
    }

    @Test
    void closingTheClientAfterAnEarlyUnlockKeepsTheLock() {
        long before;
        try (LockClient closing = newClient()) {
            before = System.nanoTime();
            taken(new LeaseholdLockProvider(closing).lock(config(name, LONG, AT_LEAST))).unlock();
        }
        assertThat(second.lock(config(name))).isEmpty();
        sleepUntil(before, AT_LEAST.plus(MARGIN));
        taken(second.lock(config(name))).unlock();
    }

    @Test
    void twoInstancesNeverRunTheSameJobAtOnceWithAShortLockAtLeastFor() throws Exception {
        new JobFuzz(first, second, Duration.ofMillis(5)).run();
    }

    private static void sleepUntil(long startNanos, Duration after) {
        long leftNanos = startNanos + after.toNanos() - System.nanoTime();
        if (leftNanos > 0) {
            sleep(Duration.ofNanos(leftNanos).plusMillis(1));
        }
    }
}
