package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockInfo;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.InspectorContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The inspector contract on etcd, and what only etcd reports: the oldest holder's etcd lease ttl. */
class EtcdInspectorTest extends InspectorContract {

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    @Override
    protected EngineLockClient connect() {
        return EtcdLocks.connect(cluster.get().endpoints());
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
