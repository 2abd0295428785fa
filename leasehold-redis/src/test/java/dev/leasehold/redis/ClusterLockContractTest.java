package dev.leasehold.redis;

import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared contract for the mutex on a Redis Cluster of three masters; the other kinds are in
 * {@link ClusterKindsContractTest}.
 */
@ContractKinds({"lock"})
class ClusterLockContractTest extends LockClientContract {

    @RegisterExtension
    static final TestServer<RedisClusterGroup> clusterGroup = RedisContractBackend.clusterGroup();

    @Override
    protected ContractBackend backend() {
        return RedisContractBackend.cluster(clusterGroup.get());
    }
}
