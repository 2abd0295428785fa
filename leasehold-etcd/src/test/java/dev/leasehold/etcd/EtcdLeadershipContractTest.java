package dev.leasehold.etcd;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.LeadershipContract;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** The leader-election contract against a real one-member etcd (the election only needs its linearizable order). */
@Tag("faults")
class EtcdLeadershipContractTest extends LeadershipContract {

    private static EtcdCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected LockClient connect() {
        return EtcdLocks.connect(cluster.endpoints());
    }

    @Override
    protected List<InetSocketAddress> servers() {
        return IntStream.range(0, cluster.size()).mapToObj(m -> new InetSocketAddress("127.0.0.1", cluster.clientPort(m)))
                .toList();
    }

    @Override
    protected LockClient connectVia(List<InetSocketAddress> addresses) {
        return EtcdLocks.builder().endpoints(addresses.stream()
                        .map(address -> "http://" + address.getHostString() + ":" + address.getPort())
                        .collect(Collectors.joining(",")))
                .operationTimeout(Duration.ofMillis(500)).connect();
    }
}
