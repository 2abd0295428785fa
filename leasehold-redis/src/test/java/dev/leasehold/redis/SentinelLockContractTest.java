package dev.leasehold.redis;

import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared contract for the mutex through {@code redis-sentinel://}, on a master with a replica
 * behind three Sentinels; the other kinds are in {@link SentinelKindsContractTest}.
 */
@ContractKinds({"lock"})
class SentinelLockContractTest extends LockClientContract {

    @RegisterExtension
    static final TestServer<RedisSentinelGroup> sentinelGroup = RedisContractBackend.sentinelGroup();

    @Override
    protected ContractBackend backend() {
        return RedisContractBackend.sentinel(sentinelGroup.get());
    }
}
