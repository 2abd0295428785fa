package dev.leasehold.redis;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.HoldAtLeastContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hold-at-least contract for the fair lock, the write lock and a one-permit semaphore (the
 * lease-as-key and lease-as-member scripts) on one real redis-server, in the {@code faults} profile.
 */
@Tag("faults")
@ContractKinds({"fair_lock", "write", "semaphore"})
class RedisHoldAtLeastKindsContractTest extends HoldAtLeastContract {

    @RegisterExtension
    static final TestServer<RedisServer> redis = TestServer.perClass(() -> RedisServer.builder().start());

    @Override
    protected ContractBackend backend() {
        return RedisContractBackend.single(redis.get());
    }
}
