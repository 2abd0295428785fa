package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An extension past the lease's ttl moves the key onto a new etcd lease of its own (etcd cannot
 * change a lease's TTL). When the move's answer is lost, or a release comes while the move is on
 * the wire, the client does not know which lease the key hangs on. Found by a reviewer helper: a
 * release then revoked only the lease it knew, the key lived on, held by nobody, for the whole
 * extension; and a watchdog holder's renewals kept finding the key (on the new lease, nothing
 * keeping it alive) and kept the lease valid after that lease expired and another client was
 * granted the lock. Now a release waits for the renewal in flight and deletes a key that may have
 * moved by its holder id, and a renewal counts only a key on the lease it keeps alive.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdExtensionLostAnswerTest {

    private static final String PREFIX = "moved/";

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    @Test
    void aReleaseAfterAnExtensionWhoseAnswerWasLostFreesTheName() throws Exception {
        DroppedAnswers drops = new DroppedAnswers();
        try (Client intercepted = drops.client(cluster.get().endpoints());
             EtcdLockClient cut = clientOver(intercepted);
             EtcdLockClient other = client();
             Client admin = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Lease lease = cut.lock("job", LockOptions.fixedLease(Duration.ofSeconds(5))).acquire(Duration.ofSeconds(5));
            extendLosingTheAnswer(lease, Duration.ofSeconds(60), drops, admin);

            assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
            assertThat(keys(admin)).as("the key is gone with the release").isEmpty();
            Optional<Lease> next = other.lock("job").tryAcquire(Duration.ofSeconds(3));
            next.ifPresent(Lease::release);
            assertThat(next).as("another client takes the released name").isPresent();
        }
    }

    /** No fault: an extension, then the release 0-2 ms later, while the extension's move is on the wire. */
    @Test
    void aReleaseRacingAnExtensionFreesTheName() throws Exception {
        try (EtcdLockClient locks = client();
             Client admin = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            int left = 0;
            for (int i = 0; i < 200; i++) {
                Lease lease = locks.lock("race", LockOptions.fixedLease(Duration.ofSeconds(5))).acquire(Duration.ofSeconds(5));
                CompletableFuture<Void> extension = lease.extendAsync(Duration.ofSeconds(60));
                long until = System.nanoTime() + (i % 40) * 50_000L;
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
                lease.release();
                extension.handle((ignored, refused) -> null).get(5, TimeUnit.SECONDS);
                List<KeyValue> keys = keys(admin);
                if (!keys.isEmpty()) {
                    left++;
                    for (KeyValue key : keys) {
                        admin.getLeaseClient().revoke(key.getLease()).get(5, TimeUnit.SECONDS);
                    }
                }
            }
            assertThat(left).as("releases (of 200) that left the key on the extension's lease").isZero();
        }
    }

    @Test
    void aHolderWhoseExtensionAnswerWasLostIsToldBeforeAnotherIsGranted() throws Exception {
        DroppedAnswers drops = new DroppedAnswers();
        try (Client intercepted = drops.client(cluster.get().endpoints());
             EtcdLockClient cut = clientOver(intercepted);
             EtcdLockClient other = client();
             Client admin = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Lease first = cut.lock("dual", LockOptions.watchdog(Duration.ofSeconds(3))).acquire(Duration.ofSeconds(5));
            extendLosingTheAnswer(first, Duration.ofSeconds(4), drops, admin);
            assertLostBeforeTheNextGrant(first, other, "dual");
        }
    }

    /** The same with the reply lost to a connection reset: the proxy delays replies, and cuts once the move is on the server. */
    @Test
    @Tag("faults")
    void aHolderWhoseExtensionReplyWasCutIsToldBeforeAnotherIsGranted() throws Exception {
        try (FaultProxy proxy = FaultProxy.start("127.0.0.1", cluster.get().clientPort(0));
             EtcdLockClient cut = EtcdLocks.builder().endpoints("http://" + proxy.host() + ":" + proxy.port())
                     .keyPrefix(PREFIX).operationTimeout(Duration.ofSeconds(2)).connect();
             EtcdLockClient other = client();
             Client admin = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Lease first = cut.lock("dual-cut", LockOptions.watchdog(Duration.ofSeconds(3))).acquire(Duration.ofSeconds(5));
            long session = keys(admin).get(0).getLease();
            proxy.latency(Duration.ofMillis(150));
            CompletableFuture<Void> extension = first.extendAsync(Duration.ofSeconds(4));
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (keys(admin).get(0).getLease() == session && System.nanoTime() - giveUp < 0) {
                Thread.sleep(5);
            }
            proxy.cutAll(); // the move is on the server; its reply, 150 ms behind, is lost
            proxy.pass();
            assertThat(extension).as("the extension fails: its answer was lost").failsWithin(Duration.ofSeconds(10));
            assertThat(keys(admin)).singleElement().as("the key moved onto a lease of its own on the server")
                    .satisfies(key -> assertThat(key.getLease()).isNotEqualTo(session));
            assertLostBeforeTheNextGrant(first, other, "dual-cut");
        }
    }

    /**
     * Extends {@code lease} past its ttl with the move's {@code Txn} applied and its answer lost:
     * the extension fails, and the key hangs on a new lease the client does not know.
     */
    private static void extendLosingTheAnswer(Lease lease, Duration extension, DroppedAnswers drops, Client admin) {
        long before = keys(admin).get(0).getLease();
        drops.dropNext("Txn");
        assertThat(lease.extendAsync(extension)).as("the extension fails: its answer was lost")
                .failsWithin(Duration.ofSeconds(10));
        assertThat(drops.dropped()).isEqualTo(1);
        assertThat(keys(admin)).singleElement().as("the key moved onto a new lease on the server")
                .satisfies(key -> assertThat(key.getLease()).isNotEqualTo(before));
    }

    /**
     * The key's new lease, which nothing keeps alive, expires and another client is granted the
     * lock: by then the first holder must have been told its lease is lost.
     */
    private static void assertLostBeforeTheNextGrant(Lease first, EtcdLockClient other, String name) throws Exception {
        AtomicLong lostAt = new AtomicLong();
        first.lost().thenRun(() -> lostAt.set(System.nanoTime()));
        boolean[] firstValidAtGrant = new boolean[1];
        AtomicLong grantedAt = new AtomicLong();
        Lease second = other.lock(name).acquireAsync(Duration.ofSeconds(30)).thenApply(lease -> {
            grantedAt.set(System.nanoTime());
            firstValidAtGrant[0] = first.isValid();
            return lease;
        }).get(30, TimeUnit.SECONDS);
        assertThat(second.token()).isGreaterThan(first.token());
        second.release();
        assertThat(firstValidAtGrant[0]).as("the first holder's lease was valid when the second was granted").isFalse();
        assertThat(lostAt.get()).as("the first holder was told of its loss before the grant")
                .isNotZero().isLessThanOrEqualTo(grantedAt.get());
    }

    private static EtcdLockClient client() {
        return EtcdLocks.builder().endpoints(cluster.get().endpoints()).keyPrefix(PREFIX)
                .operationTimeout(Duration.ofSeconds(2)).connect();
    }

    private static EtcdLockClient clientOver(Client intercepted) {
        return EtcdLocks.builder().client(intercepted).keyPrefix(PREFIX).operationTimeout(Duration.ofSeconds(2)).connect();
    }

    private static List<KeyValue> keys(Client client) {
        try {
            return client.getKVClient().get(ByteSequence.from(PREFIX, StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS).getKvs();
        } catch (Exception failed) {
            throw new IllegalStateException(failed);
        }
    }
}
