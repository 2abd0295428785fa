package dev.leasehold.redis;

import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.InspectorContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The inspector contract on a single Redis server: every kind through inspect.lua, list.lua and break.lua. */
class RedisInspectorTest extends InspectorContract {

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
    protected EngineLockClient connect() {
        return RedisLocks.connect(server.uri());
    }
}
