package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
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
}
