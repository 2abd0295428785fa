package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockInfo;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.InspectorContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The inspector contract on etcd, and what only etcd reports: the oldest holder's etcd lease ttl. */
class EtcdInspectorTest extends InspectorContract {

    private static EtcdCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected EngineLockClient connect() {
        return EtcdLocks.connect(cluster.endpoints());
    }

    @Test
    void theRemainingTimeIsTheHoldersEtcdLeaseTtl() {
        EngineLockClient client = client();
        String name = name("ttl");
        try (Lease lease = client.lock(name, LockOptions.watchdog(Duration.ofSeconds(20))).acquire(Duration.ofSeconds(5))) {
            LockInfo held = client.inspect(name);
            assertThat(held.remaining()).hasValueSatisfying(left -> assertThat(left)
                    .isGreaterThan(Duration.ZERO).isLessThanOrEqualTo(Duration.ofSeconds(20)));
            assertThat(held.lastToken()).hasValue(lease.token());
        }
    }
}
