package dev.leasehold.etcd;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.LeadershipContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** The leader-election contract against a real one-member etcd (the election only needs its linearizable order). */
@Tag("faults")
class EtcdLeadershipContractTest extends LeadershipContract {

    @RegisterExtension
    static final TestServer<EtcdCluster> etcd = TestServer.perClass(() -> EtcdCluster.start(1));

    @Override
    protected LockClient connect() {
        return EtcdLocks.connect(etcd.get().endpoints());
    }

    @Override
    protected List<InetSocketAddress> servers() {
        return IntStream.range(0, etcd.get().size()).mapToObj(m -> new InetSocketAddress("127.0.0.1", etcd.get().clientPort(m)))
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
