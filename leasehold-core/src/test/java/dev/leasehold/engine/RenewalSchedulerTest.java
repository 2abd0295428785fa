package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.spi.RenewalRound;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One client's timer thread: a tick that throws must not cost other leases their tick, and a
 * round its protocol fails to send must not leave its leases' renewals in flight for ever.
 */
class RenewalSchedulerTest {

    private final RenewalScheduler scheduler = new RenewalScheduler();

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void aThrowingTickOnAGridInstantDoesNotSkipTheOthers() throws Exception {
        CountDownLatch ran = new CountDownLatch(2);
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        scheduler.onGrid(new Tick(() -> {
            throw new IllegalStateException("a broken tick");
        }), at);
        scheduler.onGrid(new Tick(ran::countDown), at);
        scheduler.onGrid(new Tick(ran::countDown), at);
        assertThat(ran.await(5, TimeUnit.SECONDS)).as("both healthy ticks ran").isTrue();
    }

    @Test
    void aTickMovedOrStoppedAfterItWasQueuedDoesNotRunAtItsOldInstant() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        AtomicInteger stale = new AtomicInteger();
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        Tick moved = new Tick(stale::incrementAndGet);
        scheduler.onGrid(moved, at);
        moved.queuedIn(null);
        scheduler.onGrid(new Tick(ran::countDown), at);
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(stale.get()).isZero();
        assertThat(scheduler.pendingTasks()).isZero();
    }

    /**
     * Failed before: a renewal whose send threw stayed in flight, so the lease was never renewed
     * again and expired. Now the round fails its leases, and the next tick renews them.
     */
    @Test
    void aRoundWhoseSendThrowsFailsItsLeasesAndTheNextTickRenewsThemAgain() throws Exception {
        AtomicInteger rounds = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        InMemoryLockProtocol protocol = new InMemoryLockProtocol() {
            @Override
            public void renew(RenewalRound round) {
                if (rounds.incrementAndGet() == 1) {
                    throw new IllegalStateException("a broken send");
                }
                super.renew(round);
            }
        };
        LeaseEvents events = new LeaseEvents() {
            @Override
            public void renewalFailed() {
                failures.incrementAndGet();
            }
        };
        try (LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1),
                Duration.ofMillis(50), events), "in-memory")) {
            // A 4.5 s ttl renews every 1.5 s: the second tick renews about 1.5 s before the deadline
            // the acquire set, which has passed when the lease is checked.
            Lease lease = engine.lock("broken-send", LockOptions.watchdog(Duration.ofMillis(4_500)), protocol)
                    .acquire(Duration.ofSeconds(1));
            Thread.sleep(5_000);
            assertThat(failures.get()).as("the thrown round failed its one lease").isGreaterThanOrEqualTo(1);
            assertThat(rounds.get()).isGreaterThanOrEqualTo(3);
            assertThat(lease.isValid()).as("renewed by the ticks after the broken one").isTrue();
        }
    }

    /**
     * Failed before: the round's timer, failing the unanswered renewal, cancelled itself from
     * within its own run, and was counted off twice, so a timer stayed "pending" for ever.
     */
    @Test
    void aRoundFailedByItsTimerLeavesNoTimerBehind() throws Exception {
        InMemoryLockProtocol protocol = new InMemoryLockProtocol();
        try (LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1),
                Duration.ofMillis(50)), "in-memory")) {
            Lease lease = engine.lock("unanswered", LockOptions.watchdog(Duration.ofMillis(300)), protocol)
                    .acquire(Duration.ofSeconds(1));
            protocol.holdRenewals();
            long start = System.nanoTime();
            while (lease.isValid() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
                Thread.sleep(5);
            }
            assertThat(lease.isValid()).as("lost: no renewal was answered").isFalse();
            lease.release();
            protocol.resumeReplies();
            while (engine.pendingTimers() != 0 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
                Thread.sleep(5);
            }
            assertThat(engine.pendingTimers()).isZero();
        }
    }

    /** A grid tick that runs {@code body}. */
    private static final class Tick implements RenewalScheduler.GridTick {

        private final Runnable body;
        private volatile TimerSlot slot;

        Tick(Runnable body) {
            this.body = body;
        }

        @Override
        public void queuedIn(TimerSlot slot) {
            this.slot = slot;
        }

        @Override
        public boolean isDueIn(TimerSlot slot) {
            return this.slot == slot;
        }

        @Override
        public void tick(long nowNanos, RenewalRounds rounds) {
            body.run();
        }
    }
}
