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
import java.util.Map;

/**
 * Leasehold on the consensus stores against each store's usual Java lock, on the same servers in
 * one run: Leasehold-on-ZooKeeper against Curator's {@code InterProcessMutex} on a three-server
 * in-process ZooKeeper ensemble, and Leasehold-on-etcd against jetcd's {@code Lock} client on a
 * three-member etcd cluster. The rows and the method are {@link PeerBench}'s.
 *
 * <pre>
 * java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.ConsensusBench [--smoke] [--out FILE] [--only zookeeper|etcd]
 * </pre>
 *
 * <p>{@code --only} measures one store's pair and skips the other (for a quicker run while working on one).
 * The charts go to {@code charts/} beside the report (see {@link ReportCharts}).
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
        List<Table> tables = run(settings, only);
        Duration took = Duration.between(started, Instant.now());
        Map<String, String> images = ReportCharts.write(parsed.out(),
                PeerCharts.of(tables, settings, PeerCharts.provenance()));
        parsed.publish(markdown(tables, settings, took, images));
    }

    /**
     * Removes {@code --only STORE} from {@code args} and returns the store, or null when absent.
     *
     * @throws IllegalArgumentException if the store is missing or neither zookeeper nor etcd
     */
    static String only(List<String> args) {
        String store = BenchArgs.take(args, "--only", "--only needs zookeeper or etcd, got ''");
        if (store != null && !store.equals("zookeeper") && !store.equals("etcd")) {
            throw new IllegalArgumentException("--only needs zookeeper or etcd, got '" + store + "'");
        }
        return store;
    }

    /** Starts both stores, measures both pairs, stops the stores. */
    static List<Table> run(Settings settings) throws Exception {
        return run(settings, null);
    }

    /** Measures the pair of {@code only} ("zookeeper" or "etcd"), or both when null. */
    static List<Table> run(Settings settings, String only) throws Exception {
        List<Table> tables = new ArrayList<>();
        if (!"etcd".equals(only)) {
            tables.addAll(zooKeeper(settings));
        }
        if (!"zookeeper".equals(only)) {
            tables.addAll(etcd(settings));
        }
        return tables;
    }

    private static List<Table> zooKeeper(Settings settings) throws Exception {
        List<Table> tables = new ArrayList<>();
        try (ZooKeeperEnsemble zk = ZooKeeperEnsemble.start()) {
            String connect = zk.connectString();
            tables.add(PeerBench.measure("ZooKeeper", settings, List.of(
                    new Peer("Leasehold", () -> new LeaseholdAdapter(ZooKeeperLocks.connect(connect), TTL, "Leasehold")),
                    new Peer("Curator InterProcessMutex", () -> CuratorMutexAdapter.connect(connect)))));
        }
        return tables;
    }

    private static List<Table> etcd(Settings settings) throws Exception {
        List<Table> tables = new ArrayList<>();
        try (EtcdCluster etcd = EtcdCluster.start(3)) {
            String endpoints = etcd.endpoints();
            tables.add(PeerBench.measure("etcd", settings, List.of(
                    new Peer("Leasehold", () -> new LeaseholdAdapter(EtcdLocks.connect(endpoints), TTL, "Leasehold")),
                    new Peer("jetcd Lock", () -> JetcdLockAdapter.connect(endpoints)))));
        }
        return tables;
    }

    /** The report without charts. */
    static String markdown(List<Table> tables, Settings settings, Duration took) {
        return markdown(tables, settings, took, Map.of());
    }

    /** The report, each table followed by its charts in {@code images} (from {@link ReportCharts#write}). */
    static String markdown(List<Table> tables, Settings settings, Duration took, Map<String, String> images) {
        StringBuilder text = new StringBuilder("# Leasehold on ZooKeeper and etcd against Curator and jetcd\n\n")
                .append(PeerBench.method(settings, took));
        for (Table table : tables) {
            text.append(PeerBench.markdown(table, List.of(new Ratio(table.peers().get(0), table.peers().get(1)))))
                    .append(ReportCharts.images(images, PeerCharts.names(table)));
        }
        return text.toString();
    }
}
