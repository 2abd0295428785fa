package dev.leasehold.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** One client's timer thread: a task that throws must not cost other leases their tick. */
class RenewalSchedulerTest {

    private final RenewalScheduler scheduler = new RenewalScheduler();

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void aThrowingTaskOnAGridInstantDoesNotSkipTheOthers() throws Exception {
        CountDownLatch ran = new CountDownLatch(2);
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        scheduler.scheduleOnGrid(() -> {
            throw new IllegalStateException("a broken tick");
        }, at);
        scheduler.scheduleOnGrid(ran::countDown, at);
        scheduler.scheduleOnGrid(ran::countDown, at);
        assertThat(ran.await(5, TimeUnit.SECONDS)).as("both healthy ticks ran").isTrue();
    }

    @Test
    void aThrowingSendDoesNotSkipTheRestOfItsBatchNorTheFlush() throws Exception {
        AtomicInteger sent = new AtomicInteger();
        CountDownLatch flushed = new CountDownLatch(1);
        InMemoryLockProtocol protocol = new InMemoryLockProtocol() {
            @Override
            public void flushRenewals() {
                flushed.countDown();
            }
        };
        CountDownLatch gate = new CountDownLatch(1);
        // Hold the scheduler thread so the three sends land in one batch.
        scheduler.schedule(() -> await(gate), 0);
        scheduler.batch(sent::incrementAndGet, protocol);
        scheduler.batch(() -> {
            throw new IllegalStateException("a broken send");
        }, protocol);
        scheduler.batch(sent::incrementAndGet, protocol);
        gate.countDown();
        assertThat(flushed.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(sent.get()).isEqualTo(2);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
