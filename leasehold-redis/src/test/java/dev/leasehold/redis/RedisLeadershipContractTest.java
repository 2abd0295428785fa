package dev.leasehold.redis;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.LeadershipContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/** The leader-election contract, against one real redis-server. */
class RedisLeadershipContractTest extends LeadershipContract {

    @RegisterExtension
    static final TestServer<RedisServer> redis = TestServer.perClass(() -> RedisServer.builder().start());

    @Override
    protected LockClient connect() {
        return RedisLocks.connect(redis.get().uri());
    }

    @Override
    protected List<InetSocketAddress> servers() {
        return List.of(new InetSocketAddress(redis.get().host(), redis.get().port()));
    }

    @Override
    protected LockClient connectVia(List<InetSocketAddress> addresses) {
        InetSocketAddress via = addresses.get(0);
        return RedisLocks.builder().uri("redis://" + via.getHostString() + ":" + via.getPort())
                .operationTimeout(Duration.ofMillis(500)).connect();
    }
}
