package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a held lease keeps alive: a client may hold 100,000 leases for hours, so the acquisition
 * that took one (its futures, send stamps, subscription and timer fields, several hundred bytes) must
 * not live as long as the lease. Its place at the head of the local queue must, so the client's other
 * acquisitions of the name still wait for the lease to end.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HeldLeaseFootprintTest {

    private static final Duration TTL = Duration.ofSeconds(30);

    private final InMemoryLockProtocol protocol = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1),
            Duration.ofMillis(50)), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void aHeldLeaseDoesNotKeepTheAcquisitionThatTookIt() throws Exception {
        DistributedLock lock = engine.lock("kept", LockOptions.watchdog(TTL), protocol);
        CompletableFuture<Lease> acquisition = lock.acquireAsync(Duration.ofSeconds(5));
        Lease lease = acquisition.get(5, TimeUnit.SECONDS);
        // The caller's future belongs to the acquisition: only the acquisition keeps it reachable.
        WeakReference<CompletableFuture<Lease>> acquisitionsFuture = new WeakReference<>(acquisition);
        acquisition = null;

        assertThat(collected(acquisitionsFuture)).as("the acquisition was collected while its lease is held").isTrue();
        assertThat(lease.isValid()).isTrue();
        lease.release();
    }

    @Test
    void theLeaseStillHoldsTheHeadOfTheLocalQueue() throws Exception {
        DistributedLock lock = engine.lock("queued", LockOptions.watchdog(TTL), protocol);
        Lease first = lock.acquire(Duration.ofSeconds(5));
        System.gc();
        CompletableFuture<Lease> second = lock.acquireAsync(Duration.ofSeconds(10));
        Thread.sleep(200);
        assertThat(second).as("the second acquisition waits in the local queue").isNotDone();
        assertThat(protocol.acquireCalls()).as("and has sent nothing").isEqualTo(1);
        assertThat(engine.queuedAcquisitions("queued")).isEqualTo(2);

        first.release();
        Lease next = second.get(5, TimeUnit.SECONDS);
        assertThat(next.token()).isGreaterThan(first.token());
        next.release();
        assertThat(engine.queuedAcquisitions("queued")).isZero();
        assertThat(engine.activeLockNames()).isZero();
    }

    /**
     * The acquisition leaves the queue only once its lease is registered: close() must find one or the
     * other, or a grant arriving as the client closes stays held on the server after close() returned
     * (until its ttl, with the connection closed). Failed at 34a70fb, where the acquisition gave up its
     * place before its lease was registered.
     */
    @Test
    void aGrantRacingCloseIsReleasedBeforeCloseReturns() throws Exception {
        for (int round = 0; round < 2_000; round++) {
            InMemoryLockProtocol backend = new InMemoryLockProtocol();
            LeaseEngine closing = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1),
                    Duration.ofMillis(50)), "in-memory");
            backend.holdReplies();
            closing.lock("raced", LockOptions.watchdog(TTL), backend).acquireAsync(Duration.ofSeconds(5));
            while (backend.heldReplies() == 0) {
                Thread.onSpinWait();
            }
            CyclicBarrier start = new CyclicBarrier(2);
            Thread granting = new Thread(() -> {
                awaitQuietly(start);
                backend.resumeReplies();
            });
            granting.start();
            start.await();
            closing.close();
            assertThat(backend.holder("raced")).as("round %d: held after close() returned", round).isEmpty();
            granting.join();
        }
    }

    private static void awaitQuietly(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Collects until {@code reference} is cleared, for a few seconds at most. */
    static boolean collected(WeakReference<?> reference) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reference.get() != null && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(20);
        }
        return reference.get() == null;
    }
}
