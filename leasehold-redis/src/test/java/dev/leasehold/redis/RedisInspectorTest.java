package dev.leasehold.redis;

import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.InspectorContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The inspector contract on a single Redis server: every kind through inspect.lua, list.lua and break.lua. */
class RedisInspectorTest extends InspectorContract {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @Override
    protected EngineLockClient connect() {
        return RedisLocks.connect(server.get().uri());
    }
}
