package dev.leasehold.redis;

import dev.leasehold.engine.EngineSemaphore;
import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.testkit.contract.LockClientContract;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A one-permit semaphore is an exclusive lock: the whole shared contract, against one real redis-server. */
class RedisSemaphoreContractTest extends LockClientContract {

    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.builder().start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected LockClient connect() {
        return RedisLocks.connect(server.uri());
    }

    @Override
    protected AutoCloseable pauseBackend() {
        server.pause();
        return server::resume;
    }

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return ((EngineSemaphore) client.semaphore(name, 1, options)).lock();
    }
}
