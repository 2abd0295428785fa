package dev.leasehold.zookeeper;

import org.junit.jupiter.api.Tag;
import dev.leasehold.LockClient;
import dev.leasehold.testkit.contract.LeadershipContract;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The leader-election contract on the shared three-server ensemble: candidates connect directly,
 * the partitioned one through fault proxies of its own; 3 s sessions.
 */
@Tag("faults")
class ZooKeeperLeadershipContractTest extends LeadershipContract {

    @Override
    protected LockClient connect() {
        return ZooKeeperLocks.builder().connectString(Ensemble.shared().directConnectString())
                .sessionTimeout(TestClients.SESSION_TIMEOUT).connectTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    protected List<InetSocketAddress> servers() {
        return Ensemble.shared().servers();
    }

    @Override
    protected LockClient connectVia(List<InetSocketAddress> addresses) {
        String via = addresses.stream().map(address -> address.getHostString() + ":" + address.getPort())
                .collect(Collectors.joining(","));
        return ZooKeeperLocks.builder().connectString(via).sessionTimeout(TestClients.SESSION_TIMEOUT)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }
}
