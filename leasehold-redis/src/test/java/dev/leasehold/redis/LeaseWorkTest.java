package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Lease-scoped work ({@code call}, {@code run}, {@code callAsync}) on a real server: results and
 * exceptions pass through, the lease is bound as {@link Lease#current()}, and work whose lease is
 * lost is interrupted at the local deadline, before the next holder's work can start. Platform
 * threads only: this build targets Java 17, which has no virtual threads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseWorkTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private final List<RedisLockClient> clients = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void closeClients() {
        if (server.get().isPaused()) {
            server.get().resume();
        }
        pool.shutdownNow();
        clients.forEach(RedisLockClient::close);
        clients.clear();
    }

    private RedisLockClient client(Duration operationTimeout) {
        RedisLockClient client = RedisLocks.builder().uri(server.get().uri()).operationTimeout(operationTimeout).connect();
        clients.add(client);
        return client;
    }

    private RedisLockClient client() {
        return client(Duration.ofSeconds(3));
    }

    @Test
    void callReturnsTheResultWithTheLeaseBoundToTheThreadAndReleasesIt() throws Exception {
        DistributedLock lock = client().lock("work:result");
        String result = lock.call(WAIT, () -> {
            Lease lease = Lease.current();
            assertThat(lease.lockName()).isEqualTo("work:result");
            assertThat(server.get().command("GET", "{work:result}:fence")).isEqualTo(Long.toString(lease.token()));
            return "done " + lease.token();
        });
        assertThat(result).startsWith("done ");
        assertThat(server.get().command("EXISTS", "work:result")).isEqualTo(0L);
        assertThatThrownBy(Lease::current).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no lease is bound");

        AtomicBoolean ran = new AtomicBoolean();
        lock.run(WAIT, () -> ran.set(Lease.current().isValid()));
        assertThat(ran).isTrue();
        assertThat(server.get().command("EXISTS", "work:result")).isEqualTo(0L);
    }

    @Test
    void nestedCallsSeeTheirOwnLeaseAndGiveTheOuterOneBack() throws Exception {
        RedisLockClient client = client();
        client.lock("work:outer").run(WAIT, () -> {
            Lease outer = Lease.current();
            try {
                long inner = client.lock("work:inner").call(WAIT, () -> Lease.current().token());
                assertThat(inner).isNotEqualTo(outer.token());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            assertThat(Lease.current()).isSameAs(outer);
        });
    }

    @Test
    void theWorksExceptionPassesThroughUnchangedAndTheLockIsReleased() {
        DistributedLock lock = client().lock("work:failure");
        IOException checked = new IOException("disk full");
        assertThat(catchThrowable(() -> lock.call(WAIT, () -> {
            throw checked;
        }))).isSameAs(checked);
        IllegalStateException unchecked = new IllegalStateException("bad state");
        assertThat(catchThrowable(() -> lock.run(WAIT, () -> {
            throw unchecked;
        }))).isSameAs(unchecked);
        assertThat(checked.getSuppressed()).isEmpty();
        assertThat(server.get().command("EXISTS", "work:failure")).isEqualTo(0L);
    }

    @Test
    void nullWorkIsRefusedBeforeAnythingIsAcquired() {
        RedisLockClient client = client();
        DistributedLock lock = client.lock("work:null");
        assertThatThrownBy(() -> lock.call(WAIT, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("work");
        assertThatThrownBy(() -> lock.run(WAIT, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.callAsync(WAIT, null)).isInstanceOf(IllegalArgumentException.class);
        DistributedSemaphore semaphore = client.semaphore("work:null-permits", 2);
        assertThatThrownBy(() -> semaphore.call(WAIT, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.call(Duration.ofSeconds(-1), () -> 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(server.get().command("EXISTS", "work:null")).isEqualTo(0L);
        assertThat(server.get().command("EXISTS", "{work:null}:fence")).isEqualTo(0L);
        assertThat(client.heldLeases()).isZero();
    }

    /**
     * The holder's work sleeps (interruptibly) while the server is frozen: renewals go unanswered,
     * the local deadline passes, and the work is interrupted then, before the server-side key
     * expires. A second client, waiting all along, gets the lock after the server resumes, and its
     * work starts only after the first one's ended.
     */
    @Test
    void workWhoseLeaseIsLostToAFrozenServerIsInterruptedBeforeTheNextHolderStarts() throws Exception {
        Duration ttl = Duration.ofMillis(600);
        DistributedLock first = client(Duration.ofMillis(300)).lock("work:frozen", LockOptions.watchdog(ttl));
        // A longer ttl for the next holder: its local deadline counts from the send of an attempt that
        // may have waited in the frozen server, and must outlive that wait.
        DistributedLock second = client(Duration.ofSeconds(5)).lock("work:frozen", LockOptions.watchdog(Duration.ofSeconds(10)));
        AtomicLong pausedAt = new AtomicLong();
        AtomicLong firstEnded = new AtomicLong();
        AtomicLong secondStarted = new AtomicLong();
        AtomicLong firstToken = new AtomicLong();
        List<Future<Long>> next = new ArrayList<>();

        Throwable thrown = catchThrowable(() -> first.call(WAIT, () -> {
            firstToken.set(Lease.current().token());
            next.add(pool.submit(() -> second.call(Duration.ofSeconds(20), () -> {
                secondStarted.set(System.nanoTime());
                return Lease.current().token();
            })));
            Thread.sleep(100);
            server.get().pause();
            pausedAt.set(System.nanoTime());
            pool.submit(() -> {
                Thread.sleep(ttl.toMillis() + 400);
                server.get().resume();
                return null;
            });
            try {
                Thread.sleep(10_000);
                return "slept through";
            } finally {
                firstEnded.set(System.nanoTime());
            }
        }));

        assertThat(thrown).isInstanceOf(LeaseLostException.class).hasMessageContaining("deadline");
        assertThat(thrown.getSuppressed()).anyMatch(InterruptedException.class::isInstance);
        assertThat(Thread.currentThread().isInterrupted()).as("the call's own interrupt is cleared").isFalse();
        long interruptedAfterMillis = (firstEnded.get() - pausedAt.get()) / 1_000_000;
        assertThat(interruptedAfterMillis).as("interrupted by the local deadline, at most a ttl after the freeze")
                .isLessThanOrEqualTo(ttl.toMillis() + 150);

        long secondToken = next.get(0).get(15, TimeUnit.SECONDS);
        assertThat(secondStarted.get() - firstEnded.get()).as("the next holder's work starts after the first one's ended")
                .isPositive();
        assertThat(secondToken).isGreaterThan(firstToken.get());
    }

    @Test
    void workThatIgnoresInterruptsRunsOnAndTheCallReportsTheLossWhenItReturns() {
        DistributedLock lock = client().lock("work:stubborn", LockOptions.fixedLease(Duration.ofMillis(200)));
        AtomicBoolean sawInterrupt = new AtomicBoolean();
        Throwable thrown = catchThrowable(() -> lock.call(WAIT, () -> {
            long end = System.nanoTime() + Duration.ofMillis(500).toNanos();
            while (System.nanoTime() - end < 0) {
                Thread.onSpinWait();
            }
            sawInterrupt.set(Thread.currentThread().isInterrupted());
            return "finished late";
        }));
        assertThat(thrown).isInstanceOf(LeaseLostException.class).hasMessageContaining("work:stubborn");
        assertThat(thrown.getSuppressed()).isEmpty();
        assertThat(sawInterrupt).as("the interrupt landed, the work just did not look").isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aSemaphorePermitRunsLeaseScopedWorkToo() throws Exception {
        DistributedSemaphore semaphore = client().semaphore("work:permits", 2);
        int available = semaphore.call(WAIT, semaphore::available);
        assertThat(available).isEqualTo(1);
        assertThat(semaphore.available()).isEqualTo(2);
        Throwable thrown = catchThrowable(() -> client().semaphore("work:permits", 2,
                LockOptions.fixedLease(Duration.ofMillis(100))).run(WAIT, () -> {
                    try {
                        Thread.sleep(5_000);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException("stopped", e);
                    }
                }));
        assertThat(thrown).isInstanceOf(LeaseLostException.class);
        assertThat(thrown.getSuppressed()).singleElement().isInstanceOf(IllegalStateException.class);
    }

    @Test
    void callAsyncPassesTheResultAndCancelsTheStageWhenTheLeaseIsLost() throws Exception {
        RedisLockClient client = client();
        CompletableFuture<Long> ok = client.lock("work:async")
                .callAsync(WAIT, lease -> CompletableFuture.supplyAsync(lease::token));
        assertThat(ok.get(5, TimeUnit.SECONDS)).isPositive();
        assertThat(server.get().command("EXISTS", "work:async")).isEqualTo(0L);

        IOException failure = new IOException("no");
        CompletableFuture<Long> failed = client.lock("work:async")
                .callAsync(WAIT, lease -> CompletableFuture.failedFuture(failure));
        assertThat(catchThrowable(() -> failed.get(5, TimeUnit.SECONDS))).hasCause(failure);

        CompletableFuture<String> never = new CompletableFuture<>();
        long start = System.nanoTime();
        CompletableFuture<String> lost = client.lock("work:async", LockOptions.fixedLease(Duration.ofMillis(200)))
                .callAsync(WAIT, lease -> never);
        Throwable thrown = catchThrowable(() -> lost.join());
        assertThat(thrown).isInstanceOf(CompletionException.class).hasCauseInstanceOf(LeaseLostException.class);
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(1_000);
        assertThat(never).isCancelled();
    }

    /** The work is done: a caller that saw the release's failure would repeat it (LostBackendCallTest has more). */
    @Test
    void aFailedReleaseAfterWorkWithinItsLeaseDoesNotReplaceTheResult() throws Exception {
        DistributedLock lock = client(Duration.ofMillis(200)).lock("work:unreachable");
        String result = lock.call(WAIT, () -> {
            server.get().pause();
            return "done";
        });
        server.get().resume();
        assertThat(result).isEqualTo("done");
    }
}
