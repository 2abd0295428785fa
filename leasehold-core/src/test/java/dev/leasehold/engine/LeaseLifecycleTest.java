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
        LeaseLifecycle released = new LeaseLifecycle(1_000);
        assertThat(released.beginRelease()).isTrue();
        assertThat(released.extend(5_000, 0)).isFalse();
        released.finishRelease();
        assertThat(released.phase()).isEqualTo(LeasePhase.RELEASED);
        assertThat(released.extend(9_000, 0)).isFalse();
        assertThat(released.markLost()).isFalse();
        assertThat(released.checkAt(0)).isEqualTo(LeaseLifecycle.Check.ENDED);

        LeaseLifecycle lost = new LeaseLifecycle(1_000);
        assertThat(lost.markLost()).isTrue();
        assertThat(lost.extend(5_000, 0)).isFalse();
        assertThat(lost.beginRelease()).isFalse();
        assertThat(lost.phase()).isEqualTo(LeasePhase.LOST);
    }

    @Test
    void theDeadlineOnlyMovesForwardAndValidityEndsAtIt() {
        LeaseLifecycle lifecycle = new LeaseLifecycle(1_000);
        assertThat(lifecycle.checkAt(999)).isEqualTo(LeaseLifecycle.Check.VALID);
        assertThat(lifecycle.extend(900, 0)).as("an older renewal's answer").isFalse();
        assertThat(lifecycle.extend(2_000, 999)).isTrue();
        assertThat(lifecycle.deadlineNanos()).isEqualTo(2_000);
        assertThat(lifecycle.checkAt(1_999)).isEqualTo(LeaseLifecycle.Check.VALID);
    }

    /** Failed before: a renewal answered after the deadline, before any tick, moved the deadline. */
    @Test
    void aRenewalAnsweredAfterTheDeadlineDoesNotMakeTheLeaseValidAgain() {
        LeaseLifecycle unseen = new LeaseLifecycle(1_000);
        assertThat(unseen.extend(5_000, 1_500)).as("answer processed past the deadline").isFalse();
        assertThat(unseen.checkAt(1_500)).isEqualTo(LeaseLifecycle.Check.EXPIRED_NOW);
        assertThat(unseen.phase()).isEqualTo(LeasePhase.LOST);

        LeaseLifecycle seen = new LeaseLifecycle(1_000);
        assertThat(seen.checkAt(1_000)).as("observed invalid").isEqualTo(LeaseLifecycle.Check.EXPIRED_NOW);
        assertThat(seen.extend(5_000, 999)).as("even an answer stamped before the deadline").isFalse();
        assertThat(seen.checkAt(1_200)).isEqualTo(LeaseLifecycle.Check.ENDED);
    }

    @RepeatedTest(20)
    void concurrentReleaseAndLossResolveToExactlyOneOutcome() throws Exception {
        LeaseLifecycle lifecycle = new LeaseLifecycle(Long.MAX_VALUE / 2);
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
                lifecycle.extend(Long.MAX_VALUE / 2 + i, 0);
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
        assertThat(lifecycle.checkAt(0)).isEqualTo(LeaseLifecycle.Check.ENDED);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
