package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Defect 2 of issue 19, etcd part: the local deadline never outlasts what etcd grants. etcd counts
 * leases in whole seconds, so the ttl is rounded up (never down): the server keeps the key at least
 * as long as the local deadline ({@code send + ttl - drift}) trusts it, and no cap below the ttl is
 * needed on etcd.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdLeaseTtlTest {

    @Test
    void theTtlIsRoundedUpToWholeSecondsNeverDown() {
        assertThat(Acquisitions.seconds(Duration.ofMillis(1))).isEqualTo(1);
        assertThat(Acquisitions.seconds(Duration.ofMillis(1_000))).isEqualTo(1);
        assertThat(Acquisitions.seconds(Duration.ofMillis(1_001))).isEqualTo(2);
        assertThat(Acquisitions.seconds(Duration.ofMillis(2_999))).isEqualTo(3);
    }

    @Test
    void theServerGrantsAtLeastTheTtlAndKeepsTheKeyPastTheLocalDeadline() throws Exception {
        try (EtcdCluster cluster = EtcdCluster.start(1);
             Client admin = Client.builder().endpoints(cluster.endpoints()).build();
             EtcdLockClient locks = EtcdLocks.connect(cluster.endpoints())) {
            Lease lease = locks.lock("ttl:rounded", LockOptions.fixedLease(Duration.ofMillis(1_500))).acquire(Duration.ofSeconds(5));
            KeyValue key = admin.getKVClient().get(ByteSequence.from("leasehold/ttl:rounded/", StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).build()).get(5, TimeUnit.SECONDS).getKvs().get(0);
            long granted = admin.getLeaseClient().timeToLive(key.getLease(), LeaseOption.DEFAULT).get(5, TimeUnit.SECONDS)
                    .getGrantedTTL();
            assertThat(granted).as("etcd's TTL of a 1.5 s lease").isEqualTo(2);

            lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
            long left = admin.getKVClient().get(key.getKey()).get(5, TimeUnit.SECONDS).getCount();
            assertThat(left).as("the key still stands on the server when the local deadline passed").isEqualTo(1);
        }
    }
}
