package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.testkit.junit.TestServer;
import dev.leasehold.testkit.meters.MeterReadings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LockOptions#withReplicaAck} on a real master with one replica, which some tests freeze. */
class ReplicaAckTest {

    private static final Duration ACK_TIMEOUT = Duration.ofMillis(300);
    @RegisterExtension
    @Order(1)
    static final TestServer<RedisServer> master = TestServer.perClass(() -> RedisServer.builder().start());
    /** Started after the master (the order), synced in {@link #waitForTheReplicaToSync()}. */
    @RegisterExtension
    @Order(2)
    static final TestServer<RedisServer> replica = TestServer.perClass(() -> RedisServer.builder()
            .arg("--replicaof", master.get().host(), Integer.toString(master.get().port())).start());

    @BeforeAll
    static void waitForTheReplicaToSync() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!((String) replica.get().command("INFO", "replication")).contains("master_link_status:up")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the replica did not sync");
            }
            Thread.sleep(20);
        }
    }

    @AfterEach
    void resumeReplica() {
        if (replica.get().isPaused()) {
            replica.get().resume();
        }
    }

    @Test
    void anAcknowledgedAcquireIsOnTheReplicaWhenItReturns() {
        try (RedisLockClient client = RedisLocks.connect(master.get().uri());
             Lease lease = client.lock("ack:ok", LockOptions.watchdog(Duration.ofSeconds(5))
                     .withReplicaAck(1, ACK_TIMEOUT)).acquire(Duration.ofSeconds(2))) {
            assertThat(replica.get().command("GET", "ack:ok")).as("WAIT returned only once the replica had the key")
                    .isNotNull();
            assertThat(replica.get().command("GET", "{ack:ok}:fence")).isEqualTo(Long.toString(lease.token()));
        }
    }

    /** A release hands a fair lock to an acknowledged waiter: it gets the handoff's token, once the replica has it. */
    @Test
    void anAcknowledgedWaiterGetsAFairLockHandedOverOnceTheReplicaHasIt() throws Exception {
        LockOptions acked = LockOptions.fixedLease(Duration.ofSeconds(30)).withReplicaAck(1, ACK_TIMEOUT);
        try (RedisLockClient holderClient = RedisLocks.connect(master.get().uri());
             RedisLockClient waiterClient = RedisLocks.connect(master.get().uri())) {
            Lease held = holderClient.fairLock("ack:handoff", acked).acquire(Duration.ofSeconds(2));
            CompletableFuture<Lease> waiting = waiterClient.fairLock("ack:handoff", acked)
                    .acquireAsync(Duration.ofSeconds(10)).toCompletableFuture();
            ServerProbe.awaitWaiters(master.get(), LockKeys.of("ack:handoff").queue(), 1);
            held.release();
            try (Lease next = waiting.get(5, TimeUnit.SECONDS)) {
                assertThat(next.token()).isGreaterThan(held.token());
                assertThat(replica.get().command("GET", "{ack:handoff}:fence")).isEqualTo(Long.toString(next.token()));
            }
        }
    }

    /**
     * A mutex release reserves the key for an acknowledged waiter (lib_handoff.lua); the waiter's
     * claim is a write on its own replica-ack connection, after the reservation, so its WAIT covers
     * the release and the claim: the replica has the waiter's lease, not the reservation.
     */
    @Test
    void anAcknowledgedWaiterClaimsAMutexReservedForItOnceTheReplicaHasIt() throws Exception {
        LockOptions acked = LockOptions.fixedLease(Duration.ofSeconds(30)).withReplicaAck(1, ACK_TIMEOUT);
        try (RedisLockClient holderClient = RedisLocks.connect(master.get().uri());
             RedisLockClient waiterClient = RedisLocks.connect(master.get().uri())) {
            Lease held = holderClient.lock("ack:reserved").acquire(Duration.ofSeconds(2));
            CompletableFuture<Lease> waiting = waiterClient.lock("ack:reserved", acked)
                    .acquireAsync(Duration.ofSeconds(10)).toCompletableFuture();
            ServerProbe.awaitWaiters(master.get(), LockKeys.of("ack:reserved").waiters(), 1);
            held.release();
            try (Lease next = waiting.get(5, TimeUnit.SECONDS)) {
                assertThat(next.token()).isGreaterThan(held.token());
                assertThat(replica.get().command("GET", "ack:reserved")).as("the waiter's lease, on the replica")
                        .isEqualTo(master.get().command("GET", "ack:reserved")).asString().doesNotStartWith("~");
                assertThat(replica.get().command("GET", "{ack:reserved}:fence")).isEqualTo(Long.toString(next.token()));
            }
        }
    }

    /** Too few acknowledgements of a claim: the claimed key is released (or passed on), and the waiter is told. */
    @Test
    void aClaimTheReplicaDoesNotAcknowledgeIsReleasedAndTheWaiterIsTold() throws Exception {
        LockOptions acked = LockOptions.fixedLease(Duration.ofSeconds(30)).withReplicaAck(1, ACK_TIMEOUT);
        try (RedisLockClient holderClient = RedisLocks.connect(master.get().uri());
             RedisLockClient waiterClient = RedisLocks.connect(master.get().uri())) {
            Lease held = holderClient.lock("ack:reserved:frozen").acquire(Duration.ofSeconds(2));
            CompletableFuture<Lease> waiting = waiterClient.lock("ack:reserved:frozen", acked)
                    .acquireAsync(Duration.ofSeconds(2)).toCompletableFuture();
            ServerProbe.awaitWaiters(master.get(), LockKeys.of("ack:reserved:frozen").waiters(), 1);
            replica.get().pause();
            held.release();
            assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("acknowledged by 0 replica(s)");
            assertThat(master.get().command("EXISTS", "ack:reserved:frozen")).as("nothing left held").isEqualTo(0L);
        }
    }

    @Test
    void tooFewAcknowledgementsReleaseTheLockAndSayHowManyAcknowledged() {
        try (RedisLockClient client = RedisLocks.connect(master.get().uri())) {
            replica.get().pause();
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.lock("ack:frozen", LockOptions.fixedLease(Duration.ofSeconds(30))
                    .withReplicaAck(1, ACK_TIMEOUT)).acquire(Duration.ofSeconds(2)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("acknowledged by 0 replica(s)").hasMessageContaining("released");
            // The engine retries an unavailable backend until the wait ends, then reports the last cause.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(6));
            assertThat(master.get().command("EXISTS", "ack:frozen")).as("nothing left held").isEqualTo(0L);
            assertThatThrownBy(() -> client.lock("ack:two", LockOptions.defaults().withReplicaAck(2, ACK_TIMEOUT))
                    .acquire(Duration.ofSeconds(2)))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("fewer than the 2");
        }
    }

    @Test
    void aWaitOnTheAckConnectionDoesNotStallOtherCallers() throws Exception {
        try (RedisLockClient client = RedisLocks.connect(master.get().uri())) {
            replica.get().pause();
            CompletableFuture<Lease> acked = client.lock("ack:slow", LockOptions.defaults()
                    .withReplicaAck(1, Duration.ofMillis(1500))).acquireAsync(Duration.ofSeconds(1)).toCompletableFuture();
            Thread.sleep(100);
            long start = System.nanoTime();
            try (Lease plain = client.lock("ack:plain").acquire(Duration.ofSeconds(1))) {
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not queued behind the WAIT")
                        .isLessThan(Duration.ofMillis(500));
            }
            assertThat(acked).isNotDone();
            assertThatThrownBy(() -> acked.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(LockUnavailableException.class);
        }
    }

    @Test
    void aRenewalTheReplicaDoesNotAcknowledgeDoesNotCountSoTheLeaseEndsByItsDeadline() throws Exception {
        try (RedisLockClient client = RedisLocks.connect(master.get().uri())) {
            Duration ttl = Duration.ofMillis(900);
            Lease lease = client.lock("ack:renew", LockOptions.watchdog(ttl).withReplicaAck(1, Duration.ofMillis(100)))
                    .acquire(Duration.ofSeconds(2));
            replica.get().pause();
            long paused = System.nanoTime();
            lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - paused)).isLessThanOrEqualTo(ttl.plusMillis(100));
            assertThat(lease.isValid()).isFalse();
        }
    }

    /** A semaphore's permit is acknowledged like a lock: on the replica when the acquire returns. */
    @Test
    void anAcknowledgedPermitIsOnTheReplicaWhenItReturns() {
        LockOptions acked = LockOptions.watchdog(Duration.ofSeconds(5)).withReplicaAck(1, ACK_TIMEOUT);
        try (RedisLockClient client = RedisLocks.connect(master.get().uri());
             Lease first = client.semaphore("ack:sem:ok", 2, acked).acquire(Duration.ofSeconds(2));
             Lease second = client.semaphore("ack:sem:ok", 2, acked).acquire(Duration.ofSeconds(2))) {
            assertThat(replica.get().command("ZCARD", "{ack:sem:ok}:permits")).as("both permits and the number, on the replica")
                    .isEqualTo(3L);
            assertThat(replica.get().command("GET", "{ack:sem:ok}:fence")).isEqualTo(Long.toString(second.token()));
            assertThat(second.token()).isGreaterThan(first.token());
        }
    }

    /** Too few acknowledgements fail a permit typed, and give it back: nothing is left held. */
    @Test
    void tooFewAcknowledgementsGiveThePermitBack() {
        try (RedisLockClient client = RedisLocks.connect(master.get().uri())) {
            replica.get().pause();
            assertThatThrownBy(() -> client.semaphore("ack:sem:frozen", 1, LockOptions.fixedLease(Duration.ofSeconds(30))
                    .withReplicaAck(1, ACK_TIMEOUT)).acquire(Duration.ofSeconds(1)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("acknowledged by 0 replica(s)").hasMessageContaining("released");
            assertThat(master.get().command("EXISTS", "{ack:sem:frozen}:permits")).as("nothing left held").isEqualTo(0L);
            replica.get().resume();
            assertThat(client.semaphore("ack:sem:frozen", 1).available()).isEqualTo(1);
        }
    }

    /** The acknowledgement wraps a kind; the {@code kind} tag of {@code leasehold.acquire.wait} stays the kind's. */
    @Test
    void theAcquireMeterNamesTheKindTheAcknowledgementWraps() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LockOptions acked = LockOptions.watchdog(Duration.ofSeconds(5)).withReplicaAck(1, ACK_TIMEOUT);
        try (RedisLockClient client = RedisLocks.builder().uri(master.get().uri()).meterRegistry(registry).connect()) {
            client.lock("ack:meter:mutex", acked).acquire(Duration.ofSeconds(2)).release();
            client.fairLock("ack:meter:fair", acked).acquire(Duration.ofSeconds(2)).release();
            client.readWriteLock("ack:meter:read", acked).readLock().acquire(Duration.ofSeconds(2)).release();
            client.readWriteLock("ack:meter:write", acked).writeLock().acquire(Duration.ofSeconds(2)).release();
            client.semaphore("ack:meter:semaphore", 2, acked).acquire(Duration.ofSeconds(2)).release();
        }
        MeterReadings readings = new MeterReadings(registry);
        assertThat(readings.acquisitions("lock", "acquired")).as("the mutex").isEqualTo(1);
        assertThat(readings.acquisitions("fair_lock", "acquired")).as("the fair lock").isEqualTo(1);
        assertThat(readings.acquisitions("read", "acquired")).as("the read lock").isEqualTo(1);
        assertThat(readings.acquisitions("write", "acquired")).as("the write lock").isEqualTo(1);
        assertThat(readings.acquisitions("semaphore", "acquired")).as("the semaphore").isEqualTo(1);
    }

    @Test
    void badSettingsAreRefusedWithTheLimit() {
        assertThatThrownBy(() -> LockOptions.defaults().withReplicaAck(0, ACK_TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicas");
        assertThatThrownBy(() -> LockOptions.defaults().withReplicaAck(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        try (RedisLockClient client = RedisLocks.builder().uri(master.get().uri()).operationTimeout(Duration.ofSeconds(1)).connect()) {
            assertThatThrownBy(() -> client.lock("ack:bad", LockOptions.defaults().withReplicaAck(1, Duration.ofSeconds(1))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
            assertThatThrownBy(() -> client.semaphore("ack:sem", 2, LockOptions.defaults().withReplicaAck(1,
                    Duration.ofSeconds(1)))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("operationTimeout");
        }
    }
}
