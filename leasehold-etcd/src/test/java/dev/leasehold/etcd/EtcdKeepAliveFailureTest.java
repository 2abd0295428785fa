package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acquire on a session last confirmed more than a third of its ttl ago sends a keep-alive beside
 * its {@code Txn}. Found by a reviewer helper: when the keep-alive failed (no leader for longer than
 * the operation timeout), the attempt failed at once, without waiting for its {@code Txn}; the
 * abandon that followed deleted a key not yet there, the {@code Txn} landed after it, and its key
 * stayed on the session, which the client's other leases keep alive: the name was held by nobody
 * for as long as the client lived. Now the attempt fails only once its {@code Txn} settled.
 */
@Tag("faults")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdKeepAliveFailureTest {

    private static final String PREFIX = "keep-alive-failure/";
    private static final LockOptions TTL = LockOptions.watchdog(Duration.ofSeconds(6));

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    @Test
    void anAcquireThatFailedOnItsKeepAliveLeavesNoKeyBehind() throws Exception {
        SlowTxnFailingKeepAlives faults = new SlowTxnFailingKeepAlives();
        try (Client intercepted = faults.client(cluster.get().endpoints());
             EtcdLockClient cut = EtcdLocks.builder().client(intercepted).keyPrefix(PREFIX)
                     .operationTimeout(Duration.ofSeconds(2)).connect();
             EtcdLockClient other = EtcdLocks.builder().endpoints(cluster.get().endpoints()).keyPrefix(PREFIX)
                     .operationTimeout(Duration.ofSeconds(2)).connect();
             Client admin = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            // The session of this ttl is granted; then 2.2 s without a confirmed keep-alive (over a third of 6 s).
            cut.lock("warm", TTL).acquire(Duration.ofSeconds(5)).release();
            Thread.sleep(2_200);

            faults.arm();
            CompletableFuture<Lease> acquire = cut.lock("orphan", TTL).acquireAsync(Duration.ofSeconds(10));
            assertThat(acquire).as("the acquire fails: its keep-alive could not be confirmed")
                    .failsWithin(Duration.ofSeconds(10));
            assertThat(faults.failedKeepAlives.get()).isPositive();
            assertThat(faults.heldTxns.get()).as("the acquire's Txn is still held").isEqualTo(1);
            faults.stopFailingKeepAlives();
            Thread.sleep(500); // the abandon's clean-up had time to go out

            // Another lease of the same ttl keeps the session alive, as any busy client's would.
            Lease keeper = cut.lock("keeper", TTL).acquire(Duration.ofSeconds(5));
            faults.releaseHeld(); // the held Txn goes out now
            Thread.sleep(8_000); // past the ttl: any clean-up by expiry has had its turn

            List<KeyValue> left = keys(admin, "orphan");
            Optional<Lease> taken = other.lock("orphan").tryAcquire(Duration.ofSeconds(3));
            taken.ifPresent(Lease::release);
            keeper.release();
            assertThat(left).as("keys of the failed acquire left on the live session").isEmpty();
            assertThat(taken).as("another client takes the name").isPresent();
        }
    }

    private static List<KeyValue> keys(Client client, String name) {
        try {
            return client.getKVClient().get(ByteSequence.from(PREFIX + name + "/", StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS).getKvs();
        } catch (Exception failed) {
            throw new IllegalStateException(failed);
        }
    }
}
