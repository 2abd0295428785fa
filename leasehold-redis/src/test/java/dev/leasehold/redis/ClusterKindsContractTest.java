package dev.leasehold.redis;

import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared contract for the other exclusive kinds on a Redis Cluster of three masters, in the
 * {@code faults} profile (which CI runs too): the same engine and deployment code as the mutex's
 * suite, other scripts, kept out of the default build for its time budget.
 */
@Tag("faults")
@ContractKinds({"fair_lock", "write", "semaphore"})
class ClusterKindsContractTest extends LockClientContract {

    @RegisterExtension
    static final TestServer<RedisClusterGroup> clusterGroup = RedisContractBackend.clusterGroup();

    @Override
    protected ContractBackend backend() {
        return RedisContractBackend.cluster(clusterGroup.get());
    }
}
