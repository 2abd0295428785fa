package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.micrometer.MicrometerLeaseEvents;
import dev.leasehold.testkit.meters.MeterReadings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Lease-scoped work when its server freezes or dies, on real servers: a lost lease reaches the
 * caller by its local deadline, never after a release that waits on the frozen server; and work
 * that finished keeps its result when only the release after it could not reach the server (the
 * key expires by its ttl), which is counted in {@value MicrometerLeaseEvents#RELEASE_FAILURES}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LostBackendCallTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private final List<RedisServer> servers = new ArrayList<>();
    private final List<RedisLockClient> clients = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MeterReadings meters = new MeterReadings(registry);

    @AfterEach
    void closeAll() {
        clients.forEach(RedisLockClient::close);
        servers.forEach(RedisServer::close);
    }

    private RedisServer server() {
        RedisServer server = RedisServer.builder().start();
        servers.add(server);
        return server;
    }

    private RedisLockClient client(RedisServer server, Duration operationTimeout) {
        RedisLockClient client = RedisLocks.builder().uri(server.uri()).operationTimeout(operationTimeout)
                .meterRegistry(registry).connect();
        clients.add(client);
        return client;
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** Failed before: the call released the lost lease synchronously and threw only after the release's 5 s timeout. */
    @Test
    void aCallWhoseLeaseIsLostToAFrozenServerThrowsByTheLocalDeadline() {
        RedisServer server = server();
        Duration ttl = Duration.ofSeconds(2);
        Duration operationTimeout = Duration.ofSeconds(5);
        DistributedLock lock = client(server, operationTimeout).lock("frozen:call", LockOptions.watchdog(ttl));
        AtomicLong pausedAt = new AtomicLong();
        Throwable thrown = catchThrowable(() -> lock.call(WAIT, () -> {
            server.pause();
            pausedAt.set(System.nanoTime());
            Thread.sleep(30_000);
            return "slept through";
        }));
        long afterFreeze = millisSince(pausedAt.get());
        assertThat(thrown).isInstanceOf(LeaseLostException.class).hasMessageContaining("deadline");
        assertThat(afterFreeze).as("thrown by the local deadline (ttl %s), not after a release waited its %s",
                ttl, operationTimeout).isLessThan(ttl.toMillis() + 1_000);
    }

    /** The asynchronous form: the future fails by the local deadline, without waiting for the release. */
    @Test
    void aCallAsyncWhoseLeaseIsLostToAFrozenServerFailsByTheLocalDeadline() throws Exception {
        RedisServer server = server();
        Duration ttl = Duration.ofSeconds(2);
        Duration operationTimeout = Duration.ofSeconds(5);
        DistributedLock lock = client(server, operationTimeout).lock("frozen:async", LockOptions.watchdog(ttl));
        AtomicLong pausedAt = new AtomicLong();
        CompletableFuture<String> never = new CompletableFuture<>();
        CompletableFuture<String> result = lock.callAsync(WAIT, lease -> {
            server.pause();
            pausedAt.set(System.nanoTime());
            return never;
        });
        Throwable thrown = catchThrowable(() -> result.get(20, TimeUnit.SECONDS));
        long afterFreeze = millisSince(pausedAt.get());
        assertThat(thrown).hasCauseInstanceOf(LeaseLostException.class);
        assertThat(never).isCancelled();
        assertThat(afterFreeze).as("failed by the local deadline (ttl %s), not after a release waited its %s",
                ttl, operationTimeout).isLessThan(ttl.toMillis() + 1_000);
    }

    /** Failed before: each of these waited the operation timeout on the frozen server. */
    @Test
    void releasingALeaseLostToAFrozenServerReturnsAtOnce() throws Exception {
        RedisServer server = server();
        Duration operationTimeout = Duration.ofSeconds(5);
        RedisLockClient client = client(server, operationTimeout);
        Lease lease = client.lock("frozen:release", LockOptions.watchdog(Duration.ofMillis(600))).acquire(WAIT);
        Lease closed = client.lock("frozen:close", LockOptions.watchdog(Duration.ofMillis(600))).acquire(WAIT);
        server.pause();
        lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        closed.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

        long start = System.nanoTime();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        closed.close();
        assertThat(lease.releaseAsync().get(1, TimeUnit.SECONDS)).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(millisSince(start)).as("no release of a lost lease waited for the frozen server")
                .isLessThan(operationTimeout.toMillis() / 2);
        assertThat(lease.releaseReport()).hasValueSatisfying(report -> {
            assertThat(report.status()).isEqualTo(ReleaseStatus.ALREADY_LOST);
            assertThat(report.nodesAnswered()).as("the frozen server has not answered").isZero();
        });
        assertThat(meters.releaseFailures()).as("a lost lease's clean-up is no failed release").isZero();
    }

    /** Failed before: the call threw "release of 'killed:call' failed" over the work's result. */
    @Test
    void workThatFinishedKeepsItsResultWhenTheServerDiedBeforeTheRelease() {
        RedisServer server = server();
        DistributedLock lock = client(server, Duration.ofSeconds(1)).lock("killed:call");
        String result = catchAndReturn(() -> lock.call(WAIT, () -> {
            server.kill();
            return "done";
        }));
        assertThat(result).isEqualTo("done");
        assertThat(meters.releaseFailures()).isEqualTo(1);
    }

    /** Failed before: the release timed out on the frozen server and the call threw it over the result. */
    @Test
    void workThatFinishedKeepsItsResultWhenTheReleaseTimesOutOnAFrozenServer() throws Exception {
        RedisServer server = server();
        RedisLockClient client = client(server, Duration.ofMillis(1_500));
        DistributedLock lock = client.lock("frozen:after-work", LockOptions.watchdog(Duration.ofSeconds(10)));
        String result = catchAndReturn(() -> lock.call(WAIT, () -> {
            server.pause();
            return "done";
        }));
        assertThat(result).isEqualTo("done");
        assertThat(meters.releaseFailures()).isEqualTo(1);
        server.resume();
        assertThat((Long) server.command("PTTL", "frozen:after-work")).as("the lock stays taken until its ttl")
                .isPositive();

        CompletableFuture<String> async = client.lock("killed:async").callAsync(WAIT, lease -> {
            server.kill();
            return CompletableFuture.completedFuture("done async");
        });
        assertThat(async.get(10, TimeUnit.SECONDS)).isEqualTo("done async");
        assertThat(meters.releaseFailures()).isEqualTo(2);
    }

    private interface Work {
        String run() throws Exception;
    }

    /** The work's result, or the call's exception as an assertion failure that shows it. */
    private static String catchAndReturn(Work work) {
        try {
            return work.run();
        } catch (Exception e) {
            throw new AssertionError("the call threw instead of returning the finished work's result", e);
        }
    }
}
