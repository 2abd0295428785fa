package dev.leasehold.etcd;

import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.KindsReviewContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The issue-20 review contract on a single-member etcd cluster. */
class EtcdKindsReviewTest extends KindsReviewContract {

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
}
