package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acquire on a session confirmed shortly before is its {@code Txn} alone (no keep-alive of its
 * own), so the lease is counted from the session's confirmation, not from the attempt's send: its
 * local deadline never outlasts the session on the servers. A session gone on the server makes such
 * a {@code Txn} fail; the acquire then takes a new session, and the leases on the old one are lost.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdSessionBoundTest {

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    private static final Duration TTL = Duration.ofSeconds(3);

    @Test
    void aLeaseOnASessionConfirmedEarlierEndsLocallyNoLaterThanTheSessionCanOnTheServer() throws Exception {
        try (EtcdLockClient locks = EtcdLocks.connect(cluster.get().endpoints())) {
            LockOptions watchdog = LockOptions.watchdog(TTL);
            locks.lock("bound:0", watchdog).acquire(Duration.ofSeconds(5)).release();
            // The session's grant was sent before this: the servers may end it TTL after this, no later.
            long sessionGrantedBy = System.nanoTime();
            Thread.sleep(800); // less than a third of the ttl: the next acquire sends no keep-alive
            Lease lease = locks.lock("bound:1", watchdog).acquire(Duration.ofSeconds(5));
            long now = System.nanoTime();
            Duration remaining = lease.remaining();
            assertThat(remaining).as("the local deadline, at most the session's TTL after its grant")
                    .isPositive()
                    .isLessThanOrEqualTo(Duration.ofNanos(sessionGrantedBy + TTL.toNanos() - now));
            lease.release();
        }
    }

    @Test
    void anAcquireOnARevokedSessionTakesANewOneAndTheLeasesOnTheOldOneAreLost() throws Exception {
        try (Client admin = Client.builder().endpoints(cluster.get().endpoints()).build();
             EtcdLockClient locks = EtcdLocks.connect(cluster.get().endpoints())) {
            LockOptions watchdog = LockOptions.watchdog(Duration.ofSeconds(10));
            Lease held = locks.lock("bound:a", watchdog).acquire(Duration.ofSeconds(5));
            long session = keyOf(admin, "bound:a").getLease();
            admin.getLeaseClient().revoke(session).get(5, TimeUnit.SECONDS);

            Lease next = locks.lock("bound:b", watchdog).acquire(Duration.ofSeconds(5));
            assertThat(held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS))
                    .as("the loss signal of the lease whose key the revocation took").hasMessageContaining(Sessions.LOST);
            assertThat(keyOf(admin, "bound:b").getLease()).as("the new key's lease, a new session").isNotEqualTo(session);
            assertThat(next.isValid()).isTrue();
            next.release();
        }
    }

    private static KeyValue keyOf(Client admin, String name) throws Exception {
        return admin.getKVClient().get(ByteSequence.from("leasehold/" + name + "/", StandardCharsets.UTF_8),
                GetOption.builder().isPrefix(true).build()).get(5, TimeUnit.SECONDS).getKvs().get(0);
    }
}
