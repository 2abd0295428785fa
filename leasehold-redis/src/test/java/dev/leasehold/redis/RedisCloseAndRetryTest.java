package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Closing a client with work on the wire, and retrying a release that failed. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisCloseAndRetryTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    /**
     * Failed before (2 of 20 keys stranded for 30 s): close() failed waiting acquisitions on
     * another thread, whose clean-up then found the connection closed.
     */
    @Test
    void closingWithAnAcquireOnTheWireLeavesNoKey() throws Exception {
        for (int i = 0; i < 20; i++) {
            String name = "close-in-flight:" + i;
            RedisLockClient client = RedisLocks.connect(server.get().uri());
            client.lock("close-in-flight:warm-up").acquire(Duration.ZERO).release();
            CompletableFuture<Lease> pending = client.lock(name, LockOptions.watchdog(Duration.ofSeconds(30)))
                    .acquireAsync(Duration.ofSeconds(5));
            client.close();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (!pending.isDone() && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            assertThat(pending).isDone();
            assertThat(server.get().command("EXISTS", name)).as("key of '%s' after close()", name).isEqualTo(0L);
        }
    }

    /**
     * Failed before (2 of 20 rounds left the permit held for 30 s): a waiter woken by a release,
     * its client closing at that instant, sent its attempt after close() had cleaned up.
     */
    @Test
    void aClientClosingAsItsWaiterIsWokenLeavesNoPermitBehind() throws Exception {
        LockOptions options = LockOptions.watchdog(Duration.ofSeconds(30));
        try (RedisLockClient holder = RedisLocks.connect(server.get().uri()); RedisLockClient next = RedisLocks.connect(server.get().uri())) {
            for (int i = 0; i < 20; i++) {
                String name = "close-woken:" + i;
                RedisLockClient closing = RedisLocks.connect(server.get().uri());
                Lease held = holder.semaphore(name, 1, options).acquire(Duration.ZERO);
                closing.semaphore(name, 1, options).acquireAsync(Duration.ofSeconds(60));
                Thread.sleep(50);
                CompletableFuture<Lease> later = next.semaphore(name, 1, options).acquireAsync(Duration.ofSeconds(60));
                Thread.sleep(50);
                CompletableFuture<ReleaseStatus> released = held.releaseAsync();
                Thread.sleep(0, (i * 45_000) % 900_000);
                closing.close();
                released.get(5, TimeUnit.SECONDS);
                try (Lease lease = later.get(5, TimeUnit.SECONDS)) {
                    assertThat(lease.isValid()).as("round %d: taken long before a stranded permit's 30 s", i).isTrue();
                }
            }
        }
    }

    /** Failed before: the retry deleted the still-held key but reported ALREADY_LOST. */
    @Test
    void aReleaseRetriedAfterAFailureReportsReleased() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(server.get().host(), server.get().port());
             RedisLockClient client = RedisLocks.builder().uri("redis://" + proxy.host() + ":" + proxy.port())
                     .operationTimeout(Duration.ofMillis(500)).connect()) {
            Lease lease = client.lock("retried-release", LockOptions.watchdog(Duration.ofSeconds(30))).acquire(Duration.ZERO);
            proxy.blackhole();
            assertThatThrownBy(lease::release).isInstanceOf(LockUnavailableException.class);
            proxy.cutAll();
            proxy.pass();
            assertThat(server.get().command("EXISTS", "retried-release")).as("still held on the server").isEqualTo(1L);
            ReleaseStatus status = null;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (status == null) {
                try {
                    status = lease.release();
                } catch (LockUnavailableException stillReconnecting) {
                    assertThat(System.nanoTime()).as("reconnected in time").isLessThan(until);
                    Thread.sleep(100);
                }
            }
            assertThat(server.get().command("EXISTS", "retried-release")).isEqualTo(0L);
            assertThat(status).isEqualTo(ReleaseStatus.RELEASED);
        }
    }
}
