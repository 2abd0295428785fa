package dev.leasehold.zookeeper;

import dev.leasehold.testkit.fault.FaultProxy;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A real three-server ZooKeeper ensemble in this JVM (Curator's {@link TestingCluster}, free
 * loopback ports, a 200 ms tick so sessions of 0.4 to 10 s are allowed) with a {@link FaultProxy}
 * in front of each server: clients connect through the proxies, so a test can partition clients
 * from the servers (the servers keep talking to each other) or kill a server.
 */
final class Ensemble implements AutoCloseable {

    static final int TICK_MILLIS = 200;

    private static Ensemble shared;

    private final TestingCluster cluster;
    private final List<FaultProxy> proxies = new ArrayList<>();

    private Ensemble() {
        // Test data need not survive a power cut: skipping fsync keeps each write a loopback round trip.
        System.setProperty("zookeeper.forceSync", "no");
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            // Sessions up to 10 s (50 ticks) for tests of outages that a session outlives.
            specs.add(new InstanceSpec(null, -1, -1, -1, true, id, TICK_MILLIS, -1, Map.of("maxSessionTimeout", "10000")));
        }
        cluster = new TestingCluster(specs);
        try {
            cluster.start();
        } catch (Exception e) {
            throw new IllegalStateException("the ZooKeeper ensemble did not start", e);
        }
        for (InstanceSpec spec : cluster.getInstances()) {
            proxies.add(FaultProxy.start("127.0.0.1", spec.getPort()));
        }
    }

    /** A new ensemble, for tests that break it; close it after. */
    static Ensemble start() {
        return new Ensemble();
    }

    /** One ensemble for the tests that leave it whole, started once per test JVM. */
    static synchronized Ensemble shared() {
        if (shared == null) {
            shared = new Ensemble();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::close, "zookeeper-ensemble-shutdown"));
        }
        return shared;
    }

    /** Every server, through its proxy. */
    String connectString() {
        return proxies.stream().map(proxy -> proxy.host() + ":" + proxy.port()).collect(Collectors.joining(","));
    }

    /** Every server directly, for a client outside the fault injection. */
    String directConnectString() {
        return cluster.getConnectString();
    }

    /** Every server's client address, without a proxy. */
    List<InetSocketAddress> servers() {
        return cluster.getInstances().stream().map(spec -> new InetSocketAddress("127.0.0.1", spec.getPort())).toList();
    }

    List<FaultProxy> proxies() {
        return proxies;
    }

    /** Swallows every byte between clients and servers (a partition); closing it heals. */
    AutoCloseable partitionClients() {
        proxies.forEach(FaultProxy::blackhole);
        return this::heal;
    }

    /** Ends the partition: the swallowed connections are reset so clients reconnect cleanly. */
    void heal() {
        proxies.forEach(proxy -> {
            proxy.cutAll();
            proxy.pass();
        });
    }

    /** Kills the current leader; returns its instance, or fails if none leads. */
    InstanceSpec killLeader() throws Exception {
        for (InstanceSpec spec : cluster.getInstances()) {
            if (FourLetterWords.srvr(spec.getPort()).contains("Mode: leader")) {
                cluster.killServer(spec);
                return spec;
            }
        }
        throw new IllegalStateException("no server of the ensemble is leading");
    }

    /** Requests the servers received from clients so far, summed over the ensemble (from {@code srvr}). */
    long requestsReceived() {
        long total = 0;
        for (InstanceSpec spec : cluster.getInstances()) {
            String stats = FourLetterWords.srvr(spec.getPort());
            for (String line : stats.split("\n")) {
                if (line.startsWith("Received: ")) {
                    total += Long.parseLong(line.substring("Received: ".length()).strip());
                }
            }
        }
        return total;
    }

    void restart(InstanceSpec spec) throws Exception {
        cluster.restartServer(spec);
    }

    @Override
    public void close() {
        proxies.forEach(FaultProxy::close);
        try {
            cluster.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
