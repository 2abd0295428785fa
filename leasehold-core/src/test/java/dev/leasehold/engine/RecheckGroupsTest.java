package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.Wake;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.leasehold.engine.LeaseEngineTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiters of a protocol that covers waiters re-check together ({@link RecheckGroups}): one attempt
 * per re-check period for all of a client's waiters of one lock, by the one that arrived first and
 * naming the others, instead of one attempt per waiter; a covered waiter trusts a handoff that
 * echoes the covering attempt's stamp, and wakes when the backend says it must act.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RecheckGroupsTest {

    private static final Duration RECHECK = Duration.ofMillis(100);

    /**
     * The in-memory lock as a shared-admission kind that covers waiters, held by someone else for
     * the whole test: every attempt is held. Records each attempt, and hands out signals whose
     * parked futures the test completes.
     */
    private static final class CoveringProtocol extends InMemoryLockProtocol {
        final List<AcquireRequest> attempts = new CopyOnWriteArrayList<>();
        final Map<String, Queue<CompletableFuture<Wake>>> parked = new ConcurrentHashMap<>();
        final boolean covers;

        CoveringProtocol(boolean covers) {
            this.covers = covers;
            grantTo("herd", "another client", Duration.ofMinutes(1));
        }

        @Override
        public Admission admission() {
            return Admission.SHARED;
        }

        @Override
        public boolean coversWaiters() {
            return covers;
        }

        /** When set, the next covering attempt gets no answer (kept here). */
        volatile boolean stallCovering;
        final AtomicReference<AcquireRequest> stalled = new AtomicReference<>();

        @Override
        public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
            attempts.add(request);
            if (stallCovering && !request.covering().isEmpty() && stalled.compareAndSet(null, request)) {
                return new CompletableFuture<>();
            }
            return super.tryAcquire(request);
        }

        @Override
        public ReleaseSignal subscribe(String name, String holder) {
            Queue<CompletableFuture<Wake>> mine = parked.computeIfAbsent(holder, h -> new ConcurrentLinkedQueue<>());
            return new ReleaseSignal() {
                @Override
                public CompletableFuture<Void> ready() {
                    return CompletableFuture.completedFuture(null);
                }

                @Override
                public CompletableFuture<Wake> next() {
                    CompletableFuture<Wake> next = new CompletableFuture<>();
                    mine.add(next);
                    return next;
                }

                @Override
                public CompletableFuture<Void> unsubscribe() {
                    return CompletableFuture.completedFuture(null);
                }
            };
        }

        /** Completes what {@code holder} waits on, as a notification for it would. */
        void notify(String holder, Wake why) {
            parked.getOrDefault(holder, new ConcurrentLinkedQueue<>()).forEach(future -> future.complete(why));
        }

        long attemptsSince(int from) {
            return attempts.size() - from;
        }

        /** The attempts from the {@code from}-th on, copied: a live sub-list fails once another attempt is added. */
        List<AcquireRequest> since(int from) {
            List<AcquireRequest> all = List.copyOf(attempts);
            return all.subList(from, all.size());
        }
    }

    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), RECHECK),
            "covering");
    private final List<CompletableFuture<Lease>> waiting = new ArrayList<>();

    @AfterEach
    void close() {
        waiting.forEach(future -> future.cancel(false));
        engine.close();
    }

    private void wait(CoveringProtocol protocol, int waiters) {
        for (int i = 0; i < waiters; i++) {
            waiting.add(engine.lock("herd", LockOptions.defaults(), protocol).acquireAsync(Duration.ofSeconds(20))
                    .toCompletableFuture());
        }
        // Each waiter's first attempt, then the one after it subscribed.
        eventually(() -> protocol.attempts.size() >= 2 * waiters, "every waiter registered");
    }

    @Test
    void twentyWaitersReCheckWithOneAttemptPerPeriodNamingTheOthers() throws Exception {
        CoveringProtocol protocol = new CoveringProtocol(true);
        wait(protocol, 20);
        int from = protocol.attempts.size();

        Thread.sleep(1_000);

        // One group timer, due every 50-100 ms: about 10-20 attempts. One timer per waiter would
        // make 200-400.
        assertThat(protocol.attemptsSince(from)).isBetween(1L, 60L);
        List<AcquireRequest> rechecks = protocol.since(from);
        assertThat(rechecks).allSatisfy(attempt -> assertThat(attempt.covering()).hasSize(19)
                .doesNotContain(attempt.holder()));
        assertThat(rechecks).extracting(AcquireRequest::holder).as("the first arrival re-checks").containsOnly(
                rechecks.get(0).holder());
    }

    @Test
    void withoutCoveringEveryWaiterReChecksOnItsOwn() throws Exception {
        CoveringProtocol protocol = new CoveringProtocol(false);
        wait(protocol, 20);
        int from = protocol.attempts.size();

        Thread.sleep(1_000);

        assertThat(protocol.attemptsSince(from)).isGreaterThan(60L);
        assertThat(protocol.attempts).allSatisfy(attempt -> assertThat(attempt.covering()).isEmpty());
    }

    @Test
    void aCoveredWaiterTakesAHandoffThatEchoesTheCoveringAttemptsStamp() throws Exception {
        CoveringProtocol protocol = new CoveringProtocol(true);
        wait(protocol, 2);
        eventually(() -> protocol.attempts.stream().anyMatch(attempt -> !attempt.covering().isEmpty()),
                "a covering attempt");
        AcquireRequest covering = protocol.attempts.stream().filter(attempt -> !attempt.covering().isEmpty())
                .findFirst().orElseThrow();
        String covered = covering.covering().get(0);
        CompletableFuture<Lease> coveredLease = waiting.get(1);
        int before = protocol.attempts.size();

        protocol.notify(covered, new Wake.Granted(42, covering.stamp()));

        assertThat(coveredLease.get(5, TimeUnit.SECONDS).token()).isEqualTo(42);
        assertThat(protocol.since(before))
                .as("no attempt of its own").noneMatch(attempt -> attempt.holder().equals(covered));
        coveredLease.join().release();
    }

    @Test
    void aCoveredWaiterThatTheBackendWakesAttemptsItself() {
        CoveringProtocol protocol = new CoveringProtocol(true);
        wait(protocol, 3);
        eventually(() -> protocol.attempts.stream().anyMatch(attempt -> attempt.covering().size() == 2),
                "a covering attempt");
        String covered = protocol.attempts.stream().filter(attempt -> attempt.covering().size() == 2)
                .findFirst().orElseThrow().covering().get(1);
        int before = protocol.attempts.size();

        protocol.notify(covered, Wake.RETRY);

        eventually(() -> protocol.since(before).stream()
                .anyMatch(attempt -> attempt.holder().equals(covered)), "the woken waiter's own attempt");
    }

    @Test
    void aWaiterCancelledWhileItsCoveringAttemptIsInFlightLeavesTheNextArrivalToCoverTheRest() throws Exception {
        CoveringProtocol protocol = new CoveringProtocol(true);
        wait(protocol, 3);
        protocol.stallCovering = true;
        eventually(() -> protocol.stalled.get() != null, "a covering attempt in flight");
        AcquireRequest stalled = protocol.stalled.get();
        assertThat(stalled.covering()).hasSize(2);

        waiting.get(0).cancel(false);

        int from = protocol.attempts.size();
        eventually(() -> protocol.since(from).stream().anyMatch(attempt -> !attempt.holder().equals(stalled.holder())
                && attempt.covering().size() == 1), "the next arrival covers the last one");
        assertThat(protocol.since(from)).noneMatch(attempt -> attempt.holder().equals(stalled.holder()));
        assertThat(waiting.subList(1, 3)).noneMatch(CompletableFuture::isDone);
    }

    @Test
    void aWaiterThatGivesUpLeavesItsGroupAndTheOthersStillReCheck() throws Exception {
        CoveringProtocol protocol = new CoveringProtocol(true);
        wait(protocol, 3);
        eventually(() -> protocol.attempts.stream().anyMatch(attempt -> attempt.covering().size() == 2),
                "a covering attempt");
        String first = protocol.attempts.stream().filter(attempt -> attempt.covering().size() == 2)
                .findFirst().orElseThrow().holder();

        waiting.get(0).cancel(false);
        int from = protocol.attempts.size();
        eventually(() -> protocol.since(from).stream()
                .anyMatch(attempt -> attempt.covering().size() == 1), "the next arrival covers the last one");
        int after = protocol.attempts.size();
        Thread.sleep(300);
        assertThat(protocol.since(after)).isNotEmpty()
                .noneMatch(attempt -> attempt.holder().equals(first) || attempt.covering().contains(first));

        waiting.forEach(future -> future.cancel(false));
        eventually(() -> engine.rechecks().groups() == 0, "the group is gone with its last member");
    }
}
