package dev.leasehold.redis;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The shared contract for every exclusive kind, against one real redis-server. */
@ContractKinds({"lock", "fair_lock", "write", "semaphore"})
class RedisLockContractTest extends LockClientContract {

    @RegisterExtension
    static final TestServer<RedisServer> redis = TestServer.perClass(() -> RedisServer.builder().start());

    @Override
    protected ContractBackend backend() {
        return RedisContractBackend.single(redis.get());
    }
}
