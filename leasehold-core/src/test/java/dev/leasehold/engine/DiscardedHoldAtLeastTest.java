package dev.leasehold.engine;

import dev.leasehold.LockInterruptedException;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease granted to an acquire with {@link LockOptions#holdAtLeast} that was interrupted while the
 * grant was being delivered is discarded: nobody held it, so nothing is kept, and the lock is
 * freed at once, as the clean-up of an acquire interrupted a moment earlier frees it.
 * {@link InMemoryLockProtocol} cannot keep a lock after its release, so a discard that honoured
 * holdAtLeast would fail and leave the key until its ttl (a backend that can keep it would hold it
 * for holdAtLeast). The delivery is held open as in {@link InterruptedGrantTest}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DiscardedHoldAtLeastTest {

    private final CountDownLatch delivering = new CountDownLatch(1);
    private final CountDownLatch interruptHandled = new CountDownLatch(1);
    private final InMemoryLockProtocol backend = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50))
            .withEvents(new LeaseEvents() {
                @Override
                public void acquireEnded(String kind, AcquireOutcome outcome, long waitNanos) {
                    // Reported between the engine's completion and the caller's: hold that gap open.
                    if (outcome == AcquireOutcome.ACQUIRED) {
                        delivering.countDown();
                        awaitQuietly(interruptHandled);
                    }
                }
            }), "in-memory");

    @AfterEach
    void close() {
        interruptHandled.countDown();
        engine.close();
    }

    @Test
    void aLeaseNobodyHeldIsDeletedWithinHoldAtLeast() throws Exception {
        LockOptions options = LockOptions.watchdog(Duration.ofSeconds(30)).holdAtLeast(Duration.ofSeconds(20));
        backend.holdReplies();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread acquirer = new Thread(() -> {
            try {
                engine.lock("job", options, backend).acquire(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                thrown.set(e);
            }
        });
        acquirer.start();
        while (backend.heldReplies() == 0 || acquirer.getState() != Thread.State.WAITING) {
            Thread.sleep(1);
        }
        Thread replies = new Thread(backend::resumeReplies);
        replies.start();
        assertThat(delivering.await(5, TimeUnit.SECONDS)).as("the grant is being delivered").isTrue();

        acquirer.interrupt();
        acquirer.join(10_000);
        assertThat(acquirer.isAlive()).as("the interrupted acquire returned").isFalse();
        assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
        interruptHandled.countDown();
        replies.join(10_000);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (backend.holder("job").isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(backend.holder("job")).as("the lease nobody held was deleted, holdAtLeast or not").isEmpty();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
