package dev.leasehold.zookeeper;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The client-side ttl of ZooKeeper leases: when each node is deleted, on one timer for all of them. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NodeExpiryTest {

    private final ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1);
    private final NodeExpiry expiry;

    NodeExpiryTest() {
        timers.setRemoveOnCancelPolicy(true);
        expiry = new NodeExpiry(timers);
    }

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    private static long in(long millis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void anExpiryRunsOnceItsTimeHasComeAndNotBefore() throws Exception {
        CountDownLatch expired = new CountDownLatch(1);
        long at = in(200);
        long[] ranAt = new long[1];
        expiry.expireAt("a", at, () -> {
            ranAt[0] = System.nanoTime();
            expired.countDown();
        });
        assertThat(expiry.pending("a")).isTrue();
        assertThat(expired.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ranAt[0] - at).as("not before its time").isGreaterThanOrEqualTo(0);
        assertThat(expiry.pending("a")).isFalse();
    }

    @Test
    void aCancelledExpiryNeverRuns() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch later = new CountDownLatch(1);
        expiry.expireAt("released", in(100), ran::incrementAndGet);
        expiry.expireAt("kept", in(300), later::countDown);
        expiry.cancel("released");
        assertThat(expiry.pending("released")).isFalse();
        assertThat(later.await(10, TimeUnit.SECONDS)).as("the later expiry still runs").isTrue();
        assertThat(ran).hasValue(0);
    }

    @Test
    void aLaterTimeMovesTheExpiryAndAnEarlierOneIsIgnored() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch second = new CountDownLatch(1);
        long renewedTo = in(400);
        expiry.expireAt("a", in(100), ran::incrementAndGet);
        expiry.expireAt("a", renewedTo, () -> {
            ran.incrementAndGet();
            second.countDown();
        });
        expiry.expireAt("a", in(50), ran::incrementAndGet);
        assertThat(second.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(System.nanoTime() - renewedTo).isGreaterThanOrEqualTo(0);
        Thread.sleep(200);
        assertThat(ran).as("only the latest time ran, once").hasValue(1);
    }

    @Test
    void anEarlierExpiryThanTheTimerSetRunsOnTime() throws Exception {
        CountDownLatch shortOne = new CountDownLatch(1);
        expiry.expireAt("long", in(60_000), () -> { });
        long at = in(150);
        long[] ranAt = new long[1];
        expiry.expireAt("short", at, () -> {
            ranAt[0] = System.nanoTime();
            shortOne.countDown();
        });
        assertThat(shortOne.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ranAt[0] - at).isGreaterThanOrEqualTo(0);
        assertThat(expiry.pending("long")).isTrue();
    }

    /** A timer per lease woke the timer thread whenever a new one became the earliest; now one timer waits. */
    @Test
    void manyExpiriesShareOneTimer() {
        for (int i = 0; i < 100; i++) {
            expiry.expireAt("holder-" + i, in(10_000 + i), () -> { });
        }
        for (int i = 0; i < 50; i++) {
            expiry.cancel("holder-" + i);
        }
        assertThat(timers.getQueue()).hasSize(1);
        assertThat(expiry.pending("holder-50")).isTrue();
    }
}
