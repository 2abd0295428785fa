package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The engine on its own, over {@link InMemoryLockProtocol}: waiting, cleanup and close. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeaseEngineTest {

    private static final Duration LONG_TTL = Duration.ofSeconds(30);

    private final InMemoryLockProtocol protocol = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50)), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    private DistributedLock lock(String name) {
        return engine.lock(name, LockOptions.watchdog(LONG_TTL), protocol);
    }

    /** Each way a caller can complete the future it got: all must leave the client's queue free. */
    @ParameterizedTest
    @ValueSource(strings = {"orTimeout", "completeOnTimeout", "complete", "completeExceptionally"})
    void aFutureTheCallerCompletesAbandonsTheAcquireAndFreesTheQueue(String how) throws Exception {
        protocol.grantTo("jam", "someone-else", LONG_TTL);
        CompletableFuture<Lease> pending = lock("jam").acquireAsync(Duration.ofSeconds(20));
        switch (how) {
            case "orTimeout" -> pending.orTimeout(100, TimeUnit.MILLISECONDS);
            case "completeOnTimeout" -> pending.completeOnTimeout(null, 100, TimeUnit.MILLISECONDS);
            case "complete" -> pending.complete(null);
            default -> pending.completeExceptionally(new IllegalStateException("caller gave up"));
        }
        pending.handle((lease, error) -> null).get(5, TimeUnit.SECONDS);
        eventually(() -> engine.queuedAcquisitions("jam") == 0, "the abandoned acquire left the local queue");

        protocol.expire("jam");
        try (Lease next = lock("jam").acquire(Duration.ofSeconds(2))) {
            assertThat(next.isValid()).isTrue();
        }
    }

    @Test
    void aGrantThatArrivesAfterTheCallerGaveUpIsReleased() throws Exception {
        protocol.holdReplies();
        CompletableFuture<Lease> pending = lock("late").acquireAsync(Duration.ofSeconds(20));
        eventually(() -> protocol.acquireCalls() == 1, "the attempt was sent");
        assertThat(protocol.holder("late")).as("the server granted it").isPresent();
        assertThat(pending.complete(null)).isTrue();
        protocol.resumeReplies();
        eventually(() -> protocol.holder("late").isEmpty(), "the late grant was released");
        eventually(() -> engine.heldLeases() == 0 && engine.queuedAcquisitions("late") == 0, "nothing left held or queued");
    }

    @Test
    void aGrantWhoseReplyWasLostIsCleanedUpOnceTheConnectionIsBack() {
        protocol.loseAcquireReplies(1);
        protocol.refuseAbandons(3);
        assertThatThrownBy(() -> lock("blip").acquire(Duration.ofSeconds(1)))
                .isInstanceOf(LockUnavailableException.class);
        assertThat(protocol.holder("blip")).as("the server did grant the lost attempt").isPresent();
        eventually(() -> protocol.holder("blip").isEmpty(), "the cleanup was retried until it got through");
        assertThat(protocol.abandonCalls()).isEqualTo(4);
    }

    @Test
    void closingReleasesHeldLeasesSoOthersNeedNotWaitForTheTtl() throws Exception {
        Lease lease = lock("close").acquire(Duration.ofSeconds(1));
        engine.close();
        assertThat(protocol.holder("close")).isEmpty();
        assertThat(lease.lost().toCompletableFuture().get(1, TimeUnit.SECONDS).getMessage()).contains("closed");
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(engine.heldLeases()).isZero();
    }

    @Test
    void aLeaseGrantedAfterCloseIsEndedAtOnce() throws Exception {
        engine.close();
        protocol.grantTo("after-close", "holder-x", LONG_TTL);
        ManagedLease late = engine.newLease(new EngineLock("after-close", LockOptions.watchdog(LONG_TTL), engine, protocol),
                "holder-x", 7, System.nanoTime(), "test", AcquisitionTrace.NONE, ended -> { });
        assertThat(late.lost().toCompletableFuture().get(1, TimeUnit.SECONDS).getMessage()).contains("closed");
        assertThat(late.isValid()).isFalse();
        assertThat(engine.heldLeases()).isZero();
        eventually(() -> protocol.holder("after-close").isEmpty(), "its key was released");
    }

    @Test
    void aLeaseSeenPastItsDeadlineStaysLostWhenALateRenewalSucceeds() throws Exception {
        DistributedLock lock = engine.lock("late-renewal", LockOptions.watchdog(Duration.ofMillis(150)), protocol);
        protocol.holdRenewals();
        Lease lease = lock.acquire(Duration.ofSeconds(1));
        eventually(() -> !lease.isValid(), "the deadline passed while renewals were held back");
        protocol.resumeReplies();
        Thread.sleep(50);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isZero();
        assertThat(lease.lost().toCompletableFuture().get(1, TimeUnit.SECONDS).getMessage()).contains("deadline");
    }

    /** Failed before: lost() completed on the renewal thread, so a blocking callback stopped every renewal. */
    @Test
    void aBlockingLostCallbackDoesNotCostOtherLeasesTheirRenewals() throws Exception {
        LockOptions shortTtl = LockOptions.watchdog(Duration.ofMillis(300));
        Lease victim = engine.lock("victim", shortTtl, protocol).acquire(Duration.ofSeconds(1));
        Lease bystander = engine.lock("bystander", shortTtl, protocol).acquire(Duration.ofSeconds(1));
        victim.lost().thenRun(() -> sleep(1_000));
        protocol.expire("victim");
        protocol.grantTo("victim", "someone-else", LONG_TTL);
        eventually(() -> !victim.isValid(), "the victim's renewal found another holder");
        Thread.sleep(900);
        assertThat(bystander.isValid()).as("an unrelated lease of the same client").isTrue();
    }

    /**
     * Failed before: a cancel landing between the attempt's last check and its send ran the
     * clean-up first, so the abandon went out before the acquire, whose grant was then dropped and
     * stranded for the ttl.
     */
    @Test
    void aCancelLandingJustBeforeTheSendLeavesNoKeyBehind() throws Exception {
        AtomicReference<Runnable> beforeSend = new AtomicReference<>();
        InMemoryLockProtocol hooked = new InMemoryLockProtocol() {
            @Override
            public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
                Runnable hook = beforeSend.getAndSet(null);
                if (hook != null) {
                    hook.run();
                }
                CompletableFuture<Attempt> acted = super.tryAcquire(request);
                CompletableFuture<Attempt> reply = new CompletableFuture<>();
                CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS).execute(() -> acted.whenComplete(
                        (attempt, error) -> {
                            if (error != null) {
                                reply.completeExceptionally(error);
                            } else {
                                reply.complete(attempt);
                            }
                        }));
                return reply;
            }
        };
        LockOptions options = LockOptions.watchdog(LONG_TTL);
        Lease first = engine.lock("race", options, hooked).acquire(Duration.ZERO);
        CompletableFuture<Lease> queued = engine.lock("race", options, hooked).acquireAsync(Duration.ofSeconds(5));
        beforeSend.set(() -> {
            Thread other = new Thread(() -> queued.cancel(false));
            other.start();
            try {
                other.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        first.release();
        assertThat(queued.isCancelled()).isTrue();
        eventually(() -> hooked.holder("race").isEmpty(), "the late grant was released");
        try (Lease next = engine.lock("race", options, hooked).acquire(Duration.ofSeconds(2))) {
            assertThat(next.isValid()).isTrue();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Returns once {@code condition} holds, polling every 5 ms for up to 10 s; the engine tests'
     * one copy of testkit's {@code Eventually}, which core's tests cannot use (testkit depends on core).
     */
    static void eventually(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
