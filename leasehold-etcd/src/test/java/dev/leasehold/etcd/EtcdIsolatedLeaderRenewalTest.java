package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Defect 2 of issue 19, etcd part: the local deadline must never outlast what the quorum grants. An
 * etcd 3.4 leader cut off from its peers goes on answering {@code LeaseKeepAlive} from its own lessor
 * until it steps down (up to two election timeouts later; etcd 3.4.28 and 3.5.11 added a leadership
 * check), while the majority elects a new leader whose lessor never saw those renewals. A renewal
 * must therefore prove that a quorum still follows the member that answered it.
 */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdIsolatedLeaderRenewalTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void aRenewalAnsweredByALeaderCutOffFromItsPeersDoesNotExtendTheLease() throws Exception {
        EtcdCluster cluster = EtcdCluster.startPartitionable(3);
        resources.add(cluster);
        int leader = cluster.leader();
        EtcdLockClient holder = EtcdLocks.builder().endpoints(cluster.endpoint(leader))
                .operationTimeout(Duration.ofSeconds(1)).connect();
        resources.add(holder);
        Lease lease = holder.lock("isolated:renewal", LockOptions.watchdog(Duration.ofSeconds(5)))
                .acquire(Duration.ofSeconds(5));

        cluster.network().isolate(leader);
        // Straight after the cut the old leader still believes it leads: only a quorum check can tell.
        CompletableFuture<Void> extension = lease.extendAsync(Duration.ofSeconds(5));
        Throwable failure = extension.handle((ok, error) -> error).get(20, TimeUnit.SECONDS);
        assertThat(failure).as("an extension answered without a quorum must not succeed").isNotNull();
        cluster.network().healAll();
    }

    /**
     * The same through the session's keep-alive: a renewal of a key on a session last confirmed more
     * than a third of the ttl ago keeps the session alive, and the isolated leader answers that
     * keep-alive; the renewal must still fail, and the session's bound must not move. Driven through
     * the protocol, without the engine's watchdog, so that nothing else confirms the session meanwhile.
     */
    @Test
    void aSessionKeepAliveAnsweredByALeaderCutOffFromItsPeersDoesNotMoveTheSessionsBound() throws Exception {
        EtcdCluster cluster = EtcdCluster.startPartitionable(3);
        resources.add(cluster);
        int leader = cluster.leader();
        CountedCalls calls = new CountedCalls();
        Client client = calls.client(cluster.endpoint(leader));
        resources.add(client);
        Sessions sessions = new Sessions(client);
        Acquisitions acquisitions = new Acquisitions(client, sessions, Duration.ofSeconds(1));
        EtcdQueueProtocol protocol = new EtcdQueueProtocol(client, acquisitions, "leasehold/", LockKind.MUTEX, true,
                "etcd");
        Duration ttl = Duration.ofSeconds(3);
        Attempt attempt = protocol.tryAcquire(new AcquireRequest("isolated:session", "holder", ttl, false,
                System.nanoTime())).get(5, TimeUnit.SECONDS);
        assertThat(attempt).isInstanceOf(Attempt.Acquired.class);
        Thread.sleep(1_200); // the session's grant is now more than a third of the ttl old: a renewal keeps it alive
        long before = System.nanoTime();
        Duration grantedBefore = protocol.grantedFor("holder", before);

        cluster.network().isolate(leader);
        calls.clear();
        CompletableFuture<Boolean> renewal = protocol.renew("isolated:session", "holder", ttl);
        protocol.flushRenewals();
        // The engine bounds every call by its operation timeout; without the engine, the test does.
        Boolean renewed = renewal.handle((ok, error) -> error == null ? ok : Boolean.FALSE)
                .completeOnTimeout(Boolean.FALSE, 5, TimeUnit.SECONDS).get(20, TimeUnit.SECONDS);
        assertThat(calls.calls()).as("the renewal kept the session alive").contains("LeaseKeepAlive");
        assertThat(renewed).as("a session renewal answered without a quorum must not succeed").isFalse();
        assertThat(protocol.grantedFor("holder", before)).as("the session's bound stays where a quorum put it")
                .isEqualTo(grantedBefore);
        cluster.network().healAll();
    }
}
