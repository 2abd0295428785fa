package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LockClientClosedException;
import dev.leasehold.LockOptions;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.SettlingFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The abandon of an acquire called off while its attempt is in flight goes out only once the
 * attempt's work ended on the backend ({@link SettlingFuture}), not when its future was cancelled:
 * otherwise it can land before the attempt's grant and leave a lease held by nobody (issue 19,
 * defect 4). The attempt's future itself is still cancelled at once, so a backend working in steps
 * sees it at its next step.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InFlightAbandonTest {

    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50)), "slow");

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void theAbandonWaitsUntilTheAttemptsWorkEnded() throws Exception {
        SlowWork backend = new SlowWork();
        CompletableFuture<Lease> pending = engine.lock("name", LockOptions.watchdog(Duration.ofSeconds(30)), backend)
                .acquireAsync(Duration.ofSeconds(5));
        assertThat(backend.sent.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(pending.cancel(true)).isTrue();
        Thread.sleep(200);
        assertThat(backend.attempt.isCancelled()).as("the attempt is called off at once").isTrue();
        assertThat(backend.events).as("no abandon while the attempt's transaction runs").isEmpty();

        backend.workMayEnd.countDown();
        backend.abandoned.await(5, TimeUnit.SECONDS);
        assertThat(backend.events).containsExactly("granted", "abandoned");
    }

    /**
     * A client closed after an acquire was called off, while that acquire's attempt still runs on the
     * backend, waits (within its operation timeout) for the abandon, which goes out once the attempt's
     * work ended: the backend closes right after the engine, and an abandon sent after that is
     * refused, leaving the late grant held by nobody for its whole ttl. Failed before: close() did
     * not know of a clean-up that had left the queue, returned at once, and the abandon found the
     * backend closed (events: granted, and no abandon).
     */
    @Test
    void aClosingClientWaitsForTheAbandonOfAnAcquireCalledOffBeforeIt() throws Exception {
        SlowWork backend = new SlowWork();
        LeaseEngine closing = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(2), Duration.ofMillis(50)),
                "slow");
        CompletableFuture<Lease> pending = closing.lock("name", LockOptions.watchdog(Duration.ofSeconds(30)), backend)
                .acquireAsync(Duration.ofSeconds(5));
        assertThat(backend.sent.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(pending.cancel(true)).isTrue();
        // The attempt's transaction commits while the client closes.
        CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS).execute(backend.workMayEnd::countDown);
        closing.close();
        backend.closed = true;
        assertThat(backend.workEnded.await(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        assertThat(List.copyOf(backend.events)).as("what the backend saw").containsExactly("granted", "abandoned");
    }

    /** One attempt whose grant commits only when the test says, on a thread of its own, as a JDBC transaction would. */
    private static final class SlowWork implements LockProtocol {
        final List<String> events = new CopyOnWriteArrayList<>();
        final CountDownLatch sent = new CountDownLatch(1);
        final CountDownLatch workMayEnd = new CountDownLatch(1);
        final CountDownLatch abandoned = new CountDownLatch(1);
        final CountDownLatch workEnded = new CountDownLatch(1);
        volatile SettlingFuture<Attempt> attempt;
        /** Closed as a client closes its backend after its engine: calls are refused from then on. */
        volatile boolean closed;

        @Override
        public String describe() {
            return "slow";
        }

        @Override
        public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
            SettlingFuture<Attempt> call = new SettlingFuture<>();
            attempt = call;
            Thread work = new Thread(() -> {
                try {
                    workMayEnd.await();
                    events.add("granted");
                    call.complete(Attempt.acquired(1));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    call.workEnded();
                    workEnded.countDown();
                }
            });
            work.setDaemon(true);
            work.start();
            sent.countDown();
            return call;
        }

        @Override
        public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
            return CompletableFuture.completedFuture(ReleaseOutcome.single(true));
        }

        @Override
        public CompletableFuture<Void> abandon(String name, String holder) {
            if (closed) {
                return CompletableFuture.failedFuture(new LockClientClosedException("slow"));
            }
            events.add("abandoned");
            abandoned.countDown();
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public ReleaseSignal subscribe(String name, String holder) {
            return ReleaseSignal.none();
        }
    }
}
