package dev.leasehold.zookeeper;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** Many deadlines on one timer task: each task runs at its time (never before), once, unless cancelled. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DeadlineTimerTest {

    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1);
    private final DeadlineTimer timer;

    DeadlineTimerTest() {
        executor.setRemoveOnCancelPolicy(true);
        timer = new DeadlineTimer(executor);
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private static long in(long millis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void tasksRunInTimeOrderNeverBeforeTheirTime() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(3);
        long[] times = {in(300), in(100), in(200)};
        String[] names = {"third", "first", "second"};
        long[] ranAt = new long[3];
        for (int i = 0; i < 3; i++) {
            int index = i;
            timer.at(times[i], () -> {
                ranAt[index] = System.nanoTime();
                ran.add(names[index]);
                done.countDown();
            });
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).containsExactly("first", "second", "third");
        for (int i = 0; i < 3; i++) {
            assertThat(ranAt[i] - times[i]).as(names[i]).isGreaterThanOrEqualTo(0);
        }
    }

    @Test
    void aCancelledTaskNeverRunsAndTheNextStillDoes() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch later = new CountDownLatch(1);
        DeadlineTimer.Handle cancelled = timer.at(in(100), () -> ran.add("cancelled"));
        timer.at(in(250), () -> {
            ran.add("later");
            later.countDown();
        });
        cancelled.cancel();
        cancelled.cancel();
        assertThat(later.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).containsExactly("later");
    }

    @Test
    void aTaskEarlierThanTheOneSetRunsOnTime() throws Exception {
        CountDownLatch early = new CountDownLatch(1);
        timer.at(in(60_000), () -> { });
        long at = in(100);
        long[] ranAt = new long[1];
        timer.at(at, () -> {
            ranAt[0] = System.nanoTime();
            early.countDown();
        });
        assertThat(early.await(10, TimeUnit.SECONDS)).as("not held back by the later task").isTrue();
        assertThat(ranAt[0] - at).isGreaterThanOrEqualTo(0);
    }

    @Test
    void aTaskThatThrowsDoesNotStopTheOthers() throws Exception {
        CountDownLatch after = new CountDownLatch(1);
        long at = in(100);
        timer.at(at, () -> {
            throw new IllegalStateException("a failing task (expected in this test)");
        });
        timer.at(at, after::countDown);
        assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * An error (not an exception) thrown by one task still leaves the later ones on time: with a
     * timer per task each was isolated by its own executor task; here they share one.
     */
    @Test
    void aTaskThatThrowsAnErrorDoesNotStopTheLaterOnes() throws Exception {
        CountDownLatch later = new CountDownLatch(1);
        timer.at(in(50), () -> {
            throw new StackOverflowError("a failing task (expected in this test)");
        });
        timer.at(in(150), later::countDown);
        assertThat(later.await(10, TimeUnit.SECONDS)).as("the later task runs without another being set").isTrue();
    }

    /**
     * Threads setting and cancelling tasks while the timer task runs them (the set that re-arms,
     * the sweep that re-arms, the cancel of the armed task all racing): every task not cancelled
     * runs, never before its time; none cancelled before its time runs.
     */
    @Test
    void tasksSetAndCancelledFromManyThreadsRunOnceAtTheirTimeOrNever() throws Exception {
        int threads = 4;
        int perThread = 500;
        AtomicInteger early = new AtomicInteger();
        AtomicInteger ranCancelled = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch kept = new CountDownLatch(threads * perThread / 2);
        List<Thread> setters = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread setter = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < perThread; i++) {
                    long at = System.nanoTime() + random.nextLong(TimeUnit.MILLISECONDS.toNanos(30));
                    if (i % 2 == 0) {
                        timer.at(at, () -> {
                            if (System.nanoTime() - at < 0) {
                                early.incrementAndGet();
                            }
                            runs.incrementAndGet();
                            kept.countDown();
                        });
                    } else {
                        // Cancelled well before its time: it must never run.
                        timer.at(at + TimeUnit.SECONDS.toNanos(1), ranCancelled::incrementAndGet).cancel();
                    }
                    if (random.nextInt(20) == 0) {
                        LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(2)));
                    }
                }
            });
            setters.add(setter);
            setter.start();
        }
        for (Thread setter : setters) {
            setter.join();
        }
        assertThat(kept.await(10, TimeUnit.SECONDS)).as("every task kept ran; left: %d", kept.getCount()).isTrue();
        Thread.sleep(1_200);
        assertThat(early.get()).as("tasks run before their time").isZero();
        assertThat(ranCancelled.get()).as("cancelled tasks run").isZero();
        assertThat(runs.get()).as("each task kept ran once").isEqualTo(threads * perThread / 2);
    }

    /** A timer per task woke the executor's thread whenever a new one became the earliest; here one executor task waits. */
    @Test
    void manyTasksSetInTheOrderTheyFallDueShareOneExecutorTask() {
        for (int i = 0; i < 100; i++) {
            DeadlineTimer.Handle handle = timer.at(in(10_000 + i), () -> { });
            if (i % 2 == 0) {
                handle.cancel();
            }
        }
        assertThat(executor.getQueue()).hasSize(1);
    }
}
