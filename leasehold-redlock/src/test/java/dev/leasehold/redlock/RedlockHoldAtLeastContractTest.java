package dev.leasehold.redlock;

import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.HoldAtLeastContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The hold-at-least contract for the mutex, against five real redis-server processes. */
@ContractKinds({"lock"})
class RedlockHoldAtLeastContractTest extends HoldAtLeastContract {

    @RegisterExtension
    static final TestServer<RedisNodes> nodes = TestServer.perClass(() -> RedisNodes.start(5));

    @Override
    protected ContractBackend backend() {
        return new RedlockContractBackend(nodes.get());
    }
}
