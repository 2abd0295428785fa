package dev.leasehold.redlock;

import dev.leasehold.LockClient;
import dev.leasehold.testkit.contract.LeadershipContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

/** The leader-election contract on five real redis-server processes; Redlock keeps no leader record. */
class RedlockLeadershipContractTest extends LeadershipContract {

    @RegisterExtension
    static final TestServer<RedisNodes> nodes = TestServer.perClass(() -> RedisNodes.start(5));

    @Override
    protected LockClient connect() {
        return RedlockLocks.connect(nodes.get().uris());
    }

    @Override
    protected List<InetSocketAddress> servers() {
        return IntStream.range(0, 5).mapToObj(i -> new InetSocketAddress(nodes.get().get(i).host(), nodes.get().get(i).port()))
                .toList();
    }

    @Override
    protected LockClient connectVia(List<InetSocketAddress> addresses) {
        return RedlockLocks.builder().uris(addresses.stream()
                        .map(address -> "redis://" + address.getHostString() + ":" + address.getPort())
                        .toArray(String[]::new))
                .operationTimeout(Duration.ofMillis(500)).connect();
    }

    @Override
    protected boolean keepsLeaderRecords() {
        return false;
    }
}
