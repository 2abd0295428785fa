package dev.leasehold.bench;

import dev.leasehold.LockOptions;
import dev.leasehold.bench.PeerBench.Peer;
import dev.leasehold.bench.PeerBench.Ratio;
import dev.leasehold.bench.PeerBench.Settings;
import dev.leasehold.bench.PeerBench.Table;
import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Leasehold against Redisson's {@code RLock} on the Redis deployments teams run, on the same servers
 * in one run: a master with one replica behind three Sentinels, and a Cluster of three masters with
 * one replica each. On both, a third peer takes Leasehold's lock with {@code withReplicaAck(1, 1 s)},
 * which prices replica acknowledgement per acquire. The rows and the method are {@link PeerBench}'s.
 *
 * <p>Redisson 4 follows every lock command with {@code WAIT} for the replicas it knows, outside a
 * single-server setup; each table therefore also counts the {@code WAIT}s a lock+release sends, so
 * a reader sees which peers paid for replica acknowledgement.
 *
 * <pre>
 * java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.DeploymentBench [--smoke] [--out FILE]
 * </pre>
 *
 * <p>The charts go to {@code charts/} beside the report (see {@link ReportCharts}).
 */
public final class DeploymentBench {

    static final String LEASEHOLD = "Leasehold";
    static final String LEASEHOLD_ACK = "Leasehold withReplicaAck(1)";
    static final String REDISSON = "Redisson RLock";

    /** The watchdog lease of both libraries. */
    private static final Duration TTL = Duration.ofSeconds(10);
    /** How long an acknowledged acquire waits for its replica: Redisson's {@code slavesSyncTimeout}. */
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(1);
    /** Lock+release pairs whose {@code WAIT}s are counted, per peer. */
    private static final int CENSUS = 200;

    /**
     * One deployment's figures.
     *
     * @param table        the measured cells
     * @param ratios       the ratio columns
     * @param waitsPerPair {@code WAIT}/{@code WAITAOF} commands per lock+release, by peer
     */
    record Deployment(Table table, List<Ratio> ratios, Map<String, Double> waitsPerPair) {
    }

    private DeploymentBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs parsed = BenchArgs.parse(args, "DeploymentBench", Path.of("leasehold-bench", "DEPLOYMENTS.md"));
        Settings settings = parsed.smoke() ? Settings.smoke() : Settings.full();
        Instant started = Instant.now();
        List<Deployment> deployments = run(settings);
        Duration took = Duration.between(started, Instant.now());
        Map<String, String> images = ReportCharts.write(parsed.out(),
                PeerCharts.of(deployments.stream().map(Deployment::table).toList(), settings, PeerCharts.provenance()));
        parsed.publish(markdown(deployments, settings, took, images));
    }

    /** Starts each deployment, measures its peers, stops it. */
    static List<Deployment> run(Settings settings) throws Exception {
        Deployment sentinel;
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1, null)) {
            String uri = group.uri();
            List<String> sentinels = group.sentinels().stream().map(RedisServer::uri).toList();
            List<Peer> peers = List.of(
                    new Peer(LEASEHOLD, () -> new LeaseholdAdapter(RedisLocks.connect(uri),
                            LockOptions.watchdog(TTL), LEASEHOLD)),
                    new Peer(LEASEHOLD_ACK, () -> new LeaseholdAdapter(RedisLocks.connect(uri),
                            LockOptions.watchdog(TTL).withReplicaAck(1, ACK_TIMEOUT), LEASEHOLD_ACK)),
                    new Peer(REDISSON, () -> RedissonAdapter.using(
                            RedissonClients.sentinel(RedisSentinelGroup.MASTER_NAME, sentinels, TTL), REDISSON)));
            Table table = PeerBench.measure("Sentinel: a master, one replica, three Sentinels", settings, peers);
            sentinel = new Deployment(table, List.of(new Ratio(LEASEHOLD, REDISSON), new Ratio(LEASEHOLD_ACK, REDISSON),
                    new Ratio(LEASEHOLD_ACK, LEASEHOLD)), waits(peers, List.of(group.master())));
        }
        Deployment cluster;
        try (RedisClusterGroup nodes = RedisClusterGroup.start(3, 1)) {
            List<String> seeds = nodes.seedUris();
            String[] seedArray = seeds.toArray(String[]::new);
            List<Peer> peers = List.of(
                    new Peer(LEASEHOLD, () -> new LeaseholdAdapter(RedisLocks.connectCluster(seedArray),
                            LockOptions.watchdog(TTL), LEASEHOLD)),
                    new Peer(LEASEHOLD_ACK, () -> new LeaseholdAdapter(RedisLocks.connectCluster(seedArray),
                            LockOptions.watchdog(TTL).withReplicaAck(1, ACK_TIMEOUT), LEASEHOLD_ACK)),
                    new Peer(REDISSON, () -> RedissonAdapter.using(RedissonClients.cluster(seeds, TTL), REDISSON)));
            Table table = PeerBench.measure("Cluster: three masters, one replica each", settings, peers);
            cluster = new Deployment(table, List.of(new Ratio(LEASEHOLD, REDISSON), new Ratio(LEASEHOLD_ACK, REDISSON),
                    new Ratio(LEASEHOLD_ACK, LEASEHOLD)),
                    waits(peers, nodes.nodes().stream().filter(DeploymentBench::isMaster).toList()));
        }
        return List.of(sentinel, cluster);
    }

    private static boolean isMaster(RedisServer node) {
        return ((String) node.command("INFO", "replication")).contains("role:master");
    }

    /** Per peer, the {@code WAIT}s the masters received per lock+release of {@value #CENSUS} fresh names. */
    private static Map<String, Double> waits(List<Peer> peers, List<RedisServer> masters) {
        Map<String, Double> perPair = new LinkedHashMap<>();
        for (Peer peer : peers) {
            masters.forEach(RedisStats::reset);
            try (LockAdapter adapter = peer.open().apply(1)) {
                for (int i = 0; i < CENSUS; i++) {
                    adapter.lock("census-" + i).acquire().release();
                }
            }
            long waits = masters.stream().map(RedisStats::commandCalls)
                    .mapToLong(calls -> calls.getOrDefault("wait", 0L) + calls.getOrDefault("waitaof", 0L)).sum();
            perPair.put(peer.label(), (double) waits / CENSUS);
        }
        return perPair;
    }

    /** The report without charts. */
    static String markdown(List<Deployment> deployments, Settings settings, Duration took) {
        return markdown(deployments, settings, took, Map.of());
    }

    /** The report, each deployment followed by its charts in {@code images} (from {@link ReportCharts#write}). */
    static String markdown(List<Deployment> deployments, Settings settings, Duration took, Map<String, String> images) {
        StringBuilder text = new StringBuilder("# Leasehold on Redis Sentinel and Cluster against Redisson\n\n")
                .append(PeerBench.method(settings, took))
                .append("\nBoth libraries hold watchdog leases of ").append(TTL.toSeconds()).append(" s. ")
                .append(LEASEHOLD_ACK).append(" waits up to ").append(ACK_TIMEOUT.toMillis())
                .append(" ms for one replica after each acquire and renewal, as Redisson waits up to its ")
                .append("slavesSyncTimeout (1 s) for every replica it knows.\n");
        for (Deployment deployment : deployments) {
            text.append(PeerBench.markdown(deployment.table(), deployment.ratios()))
                    .append("\nWAIT commands per lock+release (").append(CENSUS).append(" on fresh names, counted on the ")
                    .append("masters): ");
            List<String> counts = deployment.waitsPerPair().entrySet().stream()
                    .map(e -> e.getKey() + " " + String.format("%.2f", e.getValue())).toList();
            text.append(String.join("; ", counts)).append(".\n")
                    .append(ReportCharts.images(images, PeerCharts.names(deployment.table())));
        }
        return text.toString();
    }
}
