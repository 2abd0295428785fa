package dev.leasehold.bench;

import dev.leasehold.bench.PeerBench.Peer;
import dev.leasehold.bench.PeerBench.Ratio;
import dev.leasehold.bench.PeerBench.Settings;
import dev.leasehold.bench.PeerBench.Table;
import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.zookeeper.ZooKeeperLocks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Leasehold on the consensus stores against each store's usual Java lock, on the same servers in
 * one run: Leasehold-on-ZooKeeper against Curator's {@code InterProcessMutex} on a three-server
 * in-process ZooKeeper ensemble, and Leasehold-on-etcd against jetcd's {@code Lock} client on a
 * three-member etcd cluster. The rows and the method are {@link PeerBench}'s.
 *
 * <pre>
 * java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.ConsensusBench [--smoke] [--out FILE] [--only zookeeper]
 * </pre>
 *
 * {@code --only zookeeper} measures the ZooKeeper pair alone (then pass {@code --out}: the report
 * has only that section).
 */
public final class ConsensusBench {

    /** The lease every Leasehold lock is taken with (watchdog-renewed), the same as jetcd's lease TTL. */
    private static final Duration TTL = Duration.ofSeconds(10);

    private ConsensusBench() {
    }

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(List.of(args));
        String only = only(rest);
        BenchArgs parsed = BenchArgs.parse(rest.toArray(String[]::new), "ConsensusBench",
                Path.of("leasehold-bench", "CONSENSUS.md"));
        Settings settings = parsed.smoke() ? Settings.smoke() : Settings.full();
        Instant started = Instant.now();
        List<Table> tables = run(settings, !"zookeeper".equals(only));
        parsed.publish(markdown(tables, settings, Duration.between(started, Instant.now())));
    }

    /**
     * Takes {@code --only STORE} out of {@code args}.
     *
     * @return the store named, or null without {@code --only}
     * @throws IllegalArgumentException if the store is missing or not one this bench knows
     */
    private static String only(List<String> args) {
        int at = args.indexOf("--only");
        if (at < 0) {
            return null;
        }
        if (at + 1 == args.size() || !args.get(at + 1).equals("zookeeper")) {
            throw new IllegalArgumentException("--only needs a store: zookeeper");
        }
        String store = args.remove(at + 1);
        args.remove(at);
        return store;
    }

    /** Starts both stores, measures both pairs, stops the stores. */
    static List<Table> run(Settings settings) throws Exception {
        return run(settings, true);
    }

    /** Measures the ZooKeeper pair, and the etcd pair if {@code withEtcd}. */
    static List<Table> run(Settings settings, boolean withEtcd) throws Exception {
        List<Table> tables = new ArrayList<>();
        try (ZooKeeperEnsemble zk = ZooKeeperEnsemble.start()) {
            String connect = zk.connectString();
            tables.add(PeerBench.measure("ZooKeeper", settings, List.of(
                    new Peer("Leasehold", () -> new LeaseholdAdapter(ZooKeeperLocks.connect(connect), TTL, "Leasehold")),
                    new Peer("Curator InterProcessMutex", () -> CuratorMutexAdapter.connect(connect)))));
        }
        if (!withEtcd) {
            return tables;
        }
        try (EtcdCluster etcd = EtcdCluster.start(3)) {
            String endpoints = etcd.endpoints();
            tables.add(PeerBench.measure("etcd", settings, List.of(
                    new Peer("Leasehold", () -> new LeaseholdAdapter(EtcdLocks.connect(endpoints), TTL, "Leasehold")),
                    new Peer("jetcd Lock", () -> JetcdLockAdapter.connect(endpoints)))));
        }
        return tables;
    }

    static String markdown(List<Table> tables, Settings settings, Duration took) {
        StringBuilder text = new StringBuilder("# Leasehold on ZooKeeper and etcd against Curator and jetcd\n\n")
                .append(PeerBench.method(settings, took));
        for (Table table : tables) {
            text.append(PeerBench.markdown(table, List.of(new Ratio(table.peers().get(0), table.peers().get(1)))));
        }
        return text.toString();
    }
}
