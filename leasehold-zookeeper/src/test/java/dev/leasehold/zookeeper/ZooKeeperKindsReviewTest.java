package dev.leasehold.zookeeper;

import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.testkit.contract.KindsReviewContract;

/** The issue-20 review contract on a ZooKeeper ensemble. */
class ZooKeeperKindsReviewTest extends KindsReviewContract {

    @Override
    protected EngineLockClient connect() {
        return TestClients.connect(Ensemble.shared());
    }
}
