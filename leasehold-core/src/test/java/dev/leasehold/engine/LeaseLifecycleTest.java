package dev.leasehold.engine;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The lease state machine: transitions happen once, in order, and nothing revives an ended lease. */
class LeaseLifecycleTest {

    @Test
    void aLateRenewalNeverRevivesAReleasedOrLostLease() {
        LeaseLifecycle released = new LeaseLifecycle();
        assertThat(released.activate(1_000)).isTrue();
        assertThat(released.beginRelease()).isTrue();
        assertThat(released.extend(5_000)).isFalse();
        released.finishRelease();
        assertThat(released.phase()).isEqualTo(LeasePhase.RELEASED);
        assertThat(released.extend(9_000)).isFalse();
        assertThat(released.markLost()).isFalse();
        assertThat(released.isValidAt(0)).isFalse();

        LeaseLifecycle lost = new LeaseLifecycle();
        lost.activate(1_000);
        assertThat(lost.markLost()).isTrue();
        assertThat(lost.extend(5_000)).isFalse();
        assertThat(lost.beginRelease()).isFalse();
        assertThat(lost.phase()).isEqualTo(LeasePhase.LOST);
    }

    @Test
    void theDeadlineOnlyMovesForwardAndValidityEndsAtIt() {
        LeaseLifecycle lifecycle = new LeaseLifecycle();
        assertThat(lifecycle.isValidAt(0)).as("not yet held").isFalse();
        lifecycle.activate(1_000);
        assertThat(lifecycle.isValidAt(999)).isTrue();
        assertThat(lifecycle.isValidAt(1_000)).isFalse();
        assertThat(lifecycle.extend(900)).as("an older renewal's answer").isFalse();
        assertThat(lifecycle.extend(2_000)).isTrue();
        assertThat(lifecycle.deadlineNanos()).isEqualTo(2_000);
        assertThat(lifecycle.activate(5_000)).as("activation happens once").isFalse();
    }

    @Test
    void anAcquisitionAbandonedBeforeActivationNeverBecomesHeld() {
        LeaseLifecycle lifecycle = new LeaseLifecycle();
        assertThat(lifecycle.beginRelease()).isTrue();
        assertThat(lifecycle.activate(1_000)).isFalse();
        assertThat(lifecycle.phase()).isEqualTo(LeasePhase.RELEASING);
    }

    @RepeatedTest(20)
    void concurrentReleaseAndLossResolveToExactlyOneOutcome() throws Exception {
        LeaseLifecycle lifecycle = new LeaseLifecycle();
        lifecycle.activate(Long.MAX_VALUE / 2);
        AtomicInteger winners = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        Thread releaser = new Thread(() -> {
            await(go);
            if (lifecycle.beginRelease()) {
                winners.incrementAndGet();
            }
        });
        Thread loser = new Thread(() -> {
            await(go);
            if (lifecycle.markLost()) {
                winners.incrementAndGet();
            }
        });
        Thread renewer = new Thread(() -> {
            await(go);
            for (int i = 1; i <= 1_000; i++) {
                lifecycle.extend(Long.MAX_VALUE / 2 + i);
            }
        });
        releaser.start();
        loser.start();
        renewer.start();
        go.countDown();
        releaser.join();
        loser.join();
        renewer.join();
        assertThat(winners.get()).isEqualTo(1);
        assertThat(lifecycle.phase()).isIn(LeasePhase.RELEASING, LeasePhase.LOST);
        assertThat(lifecycle.isValidAt(0)).isFalse();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
