package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.spi.Admission;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.engine.LeaseEngineTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The place a granted acquisition hands to its lease in the client's local queue ({@link WaitQueues#hold}):
 * whichever way a lease ends, the next local acquisition of the name starts only then (exclusive
 * kinds) and is never forgotten (every kind), and the queue is empty once all ended. Each ending is
 * one case: a release (from another thread, twice at once, within holdAtLeast), a renewal refused,
 * the local deadline, a loss the backend reports, and the client closing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LocalQueueHandoverTest {

    private static final Duration SHORT_TTL = Duration.ofMillis(300);

    private final InMemoryLockProtocol server = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1),
            Duration.ofMillis(50)), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    enum Ending {
        RELEASED_BY_ANOTHER_THREAD, RELEASED_TWICE_AT_ONCE, RELEASED_WITHIN_HOLD_AT_LEAST, RENEWAL_REFUSED,
        DEADLINE_PASSED, LOST_BY_THE_BACKEND, CLIENT_CLOSED
    }

    @ParameterizedTest
    @EnumSource(Ending.class)
    void anExclusiveWaiterStartsOnlyOnceTheLeaseBeforeItEnded(Ending ending) throws Exception {
        theNextWaiterFollows(Admission.EXCLUSIVE, ending);
    }

    @ParameterizedTest
    @EnumSource(Ending.class)
    void aSharedWaiterIsNeverForgotten(Ending ending) throws Exception {
        theNextWaiterFollows(Admission.SHARED, ending);
    }

    private void theNextWaiterFollows(Admission admission, Ending ending) throws Exception {
        ObservedProtocol protocol = new ObservedProtocol(server, admission);
        LockOptions options = switch (ending) {
            case RELEASED_WITHIN_HOLD_AT_LEAST -> LockOptions.watchdog(Duration.ofSeconds(30)).holdAtLeast(Duration.ofMillis(400));
            case RENEWAL_REFUSED, DEADLINE_PASSED -> LockOptions.watchdog(SHORT_TTL);
            default -> LockOptions.watchdog(Duration.ofSeconds(30));
        };
        DistributedLock lock = engine.lock("name", options, protocol);
        long firstSent = System.nanoTime();
        Lease first = lock.acquire(Duration.ZERO);
        if (admission == Admission.EXCLUSIVE) {
            protocol.watch(first);
        }
        CompletableFuture<Lease> second = engine.lock("name", options, protocol).acquireAsync(Duration.ofSeconds(20));
        Thread.sleep(150);
        assertThat(second).as("the second waits while the first is held").isNotDone();
        if (admission == Admission.EXCLUSIVE) {
            assertThat(server.acquireCalls()).as("and, exclusive, has sent nothing").isEqualTo(1);
        }

        end(first, ending, protocol);
        if (ending == Ending.CLIENT_CLOSED) {
            assertThatThrownBy(() -> second.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LeaseholdException.class);
            assertThat(server.holder("name")).as("nothing held once close() returned").isEmpty();
        } else {
            Lease next = second.get(10, TimeUnit.SECONDS);
            assertThat(next.isValid()).isTrue();
            assertThat(next.token()).isGreaterThan(first.token());
            if (ending == Ending.RELEASED_WITHIN_HOLD_AT_LEAST) {
                assertThat(System.nanoTime() - firstSent).as("granted after holdAtLeast")
                        .isGreaterThanOrEqualTo(Duration.ofMillis(400).toNanos());
            }
            next.release();
        }
        assertThat(protocol.violations()).isEmpty();
        eventually(() -> engine.activeLockNames() == 0 && engine.heldLeases() == 0, "every queue emptied");
    }

    private void end(Lease first, Ending ending, ObservedProtocol protocol) throws Exception {
        switch (ending) {
            case RELEASED_BY_ANOTHER_THREAD, RELEASED_WITHIN_HOLD_AT_LEAST ->
                    assertThat(CompletableFuture.supplyAsync(first::release).get(5, TimeUnit.SECONDS))
                            .isEqualTo(ReleaseStatus.RELEASED);
            case RELEASED_TWICE_AT_ONCE -> {
                CyclicBarrier both = new CyclicBarrier(2);
                CompletableFuture<ReleaseStatus> one = CompletableFuture.supplyAsync(() -> releaseAfter(both, first));
                CompletableFuture<ReleaseStatus> other = CompletableFuture.supplyAsync(() -> releaseAfter(both, first));
                assertThat(one.get(5, TimeUnit.SECONDS)).isEqualTo(ReleaseStatus.RELEASED);
                assertThat(other.get(5, TimeUnit.SECONDS)).isEqualTo(ReleaseStatus.RELEASED);
            }
            case RENEWAL_REFUSED -> {
                server.expire("name");
                server.grantTo("name", "someone-else", Duration.ofMillis(200));
                first.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            }
            case DEADLINE_PASSED -> {
                server.failRenewals(true);
                first.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
                server.failRenewals(false);
            }
            case LOST_BY_THE_BACKEND -> {
                protocol.loseFromBackend(((ManagedLease) first).holder());
                first.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
                server.expire("name");
            }
            case CLIENT_CLOSED -> engine.close();
        }
    }

    private static ReleaseStatus releaseAfter(CyclicBarrier barrier, Lease lease) {
        try {
            barrier.await(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return lease.release();
    }

    /**
     * A lease lost while it is being made (the backend granted nothing past the attempt's send) ends
     * before its acquisition hands over its place ({@link WaitQueues#hold} after {@link WaitQueues#leave}):
     * the waiter queued behind must still get its turn, every round.
     */
    @Test
    void aLeaseLostBeforeItTookItsPlaceStillHandsTheTurnOn() throws Exception {
        ObservedProtocol protocol = new ObservedProtocol(server, Admission.EXCLUSIVE);
        LockOptions options = LockOptions.watchdog(Duration.ofSeconds(30));
        for (int round = 0; round < 300; round++) {
            String name = "born-lost:" + round;
            server.holdReplies();
            protocol.grantNothingToNextAttempt();
            CompletableFuture<Lease> first = engine.lock(name, options, protocol).acquireAsync(Duration.ofSeconds(5));
            eventually(() -> server.heldReplies() == 1, "the first attempt is on the wire");
            CompletableFuture<Lease> second = engine.lock(name, options, protocol).acquireAsync(Duration.ofSeconds(5));
            server.resumeReplies();
            Lease lost = first.get(5, TimeUnit.SECONDS);
            assertThat(lost.isValid()).isFalse();
            server.expire(name);
            Lease next = second.get(5, TimeUnit.SECONDS);
            assertThat(next.isValid()).as("round %d", round).isTrue();
            next.release();
            lost.release();
        }
        eventually(() -> engine.activeLockNames() == 0 && engine.heldLeases() == 0, "every queue emptied");
    }

    /**
     * Closing the client fails its waiting acquisitions; none talks to the backend again. Failed
     * before: close() cancelled each waiter's wait before marking its clean-up started, and the
     * cancelled wait ran the waiter's next attempt, so every waiter sent one more attempt as the
     * client closed (here 20, against a lock another client holds), and one that found the lock
     * free (this client's own lease, just released by close()) was handed a lease instead of the failure.
     */
    @Test
    void closingSendsNoFurtherAttemptForItsWaiters() throws Exception {
        ObservedProtocol protocol = new ObservedProtocol(server, Admission.SHARED);
        // Re-checks seconds apart: any attempt while close() runs is close()'s.
        LeaseEngine closing = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofSeconds(10)),
                "in-memory");
        server.grantTo("busy", "another-client", Duration.ofSeconds(30));
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            waiters.add(closing.lock("busy", LockOptions.defaults(), protocol).acquireAsync(Duration.ofSeconds(20)));
        }
        // Each tries, subscribes, and tries again before it waits.
        eventually(() -> server.acquireCalls() == 40, "every waiter waits");
        int before = server.acquireCalls();
        closing.close();
        assertThat(server.acquireCalls()).as("attempts sent by close()").isEqualTo(before);
        for (CompletableFuture<Lease> waiter : waiters) {
            assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LeaseholdException.class);
        }
    }
}
