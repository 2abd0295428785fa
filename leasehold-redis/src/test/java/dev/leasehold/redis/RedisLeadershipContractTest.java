package dev.leasehold.redis;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.LeadershipContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/** The leader-election contract, against one real redis-server. */
class RedisLeadershipContractTest extends LeadershipContract {

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
    protected List<InetSocketAddress> servers() {
        return List.of(new InetSocketAddress(server.host(), server.port()));
    }

    @Override
    protected LockClient connectVia(List<InetSocketAddress> addresses) {
        InetSocketAddress via = addresses.get(0);
        return RedisLocks.builder().uri("redis://" + via.getHostString() + ":" + via.getPort())
                .operationTimeout(Duration.ofMillis(500)).connect();
    }
}
