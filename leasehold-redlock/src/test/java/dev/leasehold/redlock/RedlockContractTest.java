package dev.leasehold.redlock;

import dev.leasehold.LockClient;
import dev.leasehold.testkit.contract.LockClientContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared contract, against five real redis-server processes; pausing the backend freezes all five. */
class RedlockContractTest extends LockClientContract {

    private static RedisNodes nodes;

    @BeforeAll
    static void startNodes() {
        nodes = RedisNodes.start(5);
    }

    @AfterAll
    static void stopNodes() {
        nodes.close();
    }

    @Override
    protected LockClient connect() {
        return RedlockLocks.connect(nodes.uris());
    }

    @Override
    protected AutoCloseable pauseBackend() {
        nodes.pauseAll();
        return nodes::resumeAll;
    }
}
