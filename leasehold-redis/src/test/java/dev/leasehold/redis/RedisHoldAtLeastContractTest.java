package dev.leasehold.redis;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.HoldAtLeastContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hold-at-least contract for the mutex on one real redis-server (the lease-as-key script); the
 * other kinds are in {@link RedisHoldAtLeastKindsContractTest}.
 */
@ContractKinds({"lock"})
class RedisHoldAtLeastContractTest extends HoldAtLeastContract {

    @RegisterExtension
    static final TestServer<RedisServer> redis = TestServer.perClass(() -> RedisServer.builder().start());

    @Override
    protected ContractBackend backend() {
        return RedisContractBackend.single(redis.get());
    }
}
