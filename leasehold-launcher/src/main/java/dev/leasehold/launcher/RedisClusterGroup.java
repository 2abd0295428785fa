package dev.leasehold.launcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis Cluster of real {@code redis-server} children on free loopback ports: some masters
 * sharing the 16384 slots evenly, each with its replicas, joined with {@code CLUSTER MEET},
 * {@code ADDSLOTS} and {@code REPLICATE} (no {@code redis-cli} needed, so it works with any
 * binary {@link RedisBinary#locate()} finds). It can fail a master over to its replica and move a
 * slot to another master. {@link #close()} ends every process.
 *
 * <p>Not thread-safe: drive it from the test's thread.
 */
public final class RedisClusterGroup implements AutoCloseable {

    /** Slots of every Redis Cluster. */
    public static final int SLOTS = 16384;
    /** How long a node may stay silent before it is called failing, unless {@link #start(int, int, Duration)} says otherwise. */
    public static final Duration NODE_TIMEOUT = Duration.ofMillis(2000);

    private final List<RedisServer> nodes;

    private RedisClusterGroup(List<RedisServer> nodes) {
        this.nodes = nodes;
    }

    /**
     * Starts {@code masters} masters with {@code replicasEach} replicas each and returns once every
     * node reports {@code cluster_state:ok} and every replica is in sync.
     *
     * @throws IllegalArgumentException if masters is not in 1..5 or replicasEach not in 0..2
     * @throws IllegalStateException if a node fails to start or the cluster does not form in 30 s;
     *                               whatever started is stopped then
     */
    public static RedisClusterGroup start(int masters, int replicasEach) {
        return start(masters, replicasEach, NODE_TIMEOUT);
    }

    /**
     * As {@link #start(int, int)} with {@code cluster-node-timeout} set to {@code nodeTimeout}:
     * longer for tests that freeze masters briefly without wanting their replicas to take over.
     */
    public static RedisClusterGroup start(int masters, int replicasEach, Duration nodeTimeout) {
        if (masters < 1 || masters > 5 || replicasEach < 0 || replicasEach > 2) {
            throw new IllegalArgumentException("masters must be in 1..5 and replicasEach in 0..2, was " + masters
                    + " and " + replicasEach);
        }
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters * (1 + replicasEach); i++) {
                nodes.add(RedisServer.builder().arg("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis())).start());
            }
            RedisClusterGroup group = new RedisClusterGroup(nodes);
            group.form(masters);
            return group;
        } catch (RuntimeException e) {
            throw CloseAll.closeAfter(e, nodes);
        }
    }

    private void form(int masters) {
        RedisServer first = nodes.get(0);
        for (RedisServer node : nodes.subList(1, nodes.size())) {
            first.command("CLUSTER", "MEET", RedisLauncher.HOST, Integer.toString(node.port()));
        }
        for (int m = 0; m < masters; m++) {
            int from = SLOTS * m / masters;
            int to = SLOTS * (m + 1) / masters;
            List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = from; slot < to; slot++) {
                args.add(Integer.toString(slot));
            }
            nodes.get(m).command(args.toArray(String[]::new));
        }
        Await.until("every node to know every other", () -> nodes.stream().allMatch(node ->
                ((String) node.command("CLUSTER", "NODES")).lines().count() == nodes.size()));
        for (int i = masters; i < nodes.size(); i++) {
            nodes.get(i).command("CLUSTER", "REPLICATE", id(nodes.get(i % masters)));
        }
        Await.until("cluster_state:ok on every node with replicas in sync", () -> nodes.stream()
                .allMatch(node -> ((String) node.command("CLUSTER", "INFO")).contains("cluster_state:ok")
                        && (nodes.indexOf(node) < masters
                            || ((String) node.command("INFO", "replication")).contains("master_link_status:up"))));
    }

    /** Every node, masters first as started (a failover changes roles, not this order). */
    public List<RedisServer> nodes() {
        return List.copyOf(nodes);
    }

    /** {@code redis://127.0.0.1:PORT} of every node, to seed a cluster client. */
    public List<String> seedUris() {
        return nodes.stream().map(RedisServer::uri).toList();
    }

    /** The node's cluster id. */
    public static String id(RedisServer node) {
        return (String) node.command("CLUSTER", "MYID");
    }

    /** The slot of {@code key}, as the cluster computes it. */
    public int slotOf(String key) {
        return ((Long) liveNode().command("CLUSTER", "KEYSLOT", key)).intValue();
    }

    /**
     * The master serving {@code slot} according to a live node.
     *
     * @throws IllegalStateException if no node claims it
     */
    public RedisServer masterOf(int slot) {
        for (Object range : (List<?>) liveNode().command("CLUSTER", "SLOTS")) {
            List<?> fields = (List<?>) range;
            if ((Long) fields.get(0) <= slot && slot <= (Long) fields.get(1)) {
                int port = ((Long) ((List<?>) fields.get(2)).get(1)).intValue();
                return nodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow();
            }
        }
        throw new IllegalStateException("no master serves slot " + slot);
    }

    /** The live replicas following {@code master}. */
    public List<RedisServer> replicasOf(RedisServer master) {
        String masterId = id(master);
        return nodes.stream().filter(n -> n.isAlive() && !n.isPaused() && n != master
                && ((String) n.command("CLUSTER", "NODES")).lines()
                        .anyMatch(line -> line.contains("myself") && line.contains(masterId))).toList();
    }

    /**
     * A manual failover ({@code CLUSTER FAILOVER} on {@code replica}): the replica waits until it
     * has everything its master acknowledged, then takes over its slots. Returns once every live
     * node sees it as master.
     */
    public void failover(RedisServer replica) {
        replica.command("CLUSTER", "FAILOVER");
        String replicaId = id(replica);
        Await.until("port " + replica.port() + " to become master", () -> nodes.stream()
                .filter(n -> n.isAlive() && !n.isPaused())
                .allMatch(n -> ((String) n.command("CLUSTER", "NODES")).lines()
                        .anyMatch(line -> line.startsWith(replicaId) && line.contains("master"))));
    }

    /**
     * Moves {@code slot} to {@code target} the way {@code redis-cli --cluster reshard} does: marks
     * it {@code IMPORTING} on the target and {@code MIGRATING} on its owner, runs
     * {@code whileMigrating} (clients now get {@code ASK} for keys not yet moved), moves its keys
     * with {@code MIGRATE}, and assigns it to the target on every master.
     */
    public void moveSlot(int slot, RedisServer target, Runnable whileMigrating) {
        RedisServer source = masterOf(slot);
        if (source == target) {
            throw new IllegalArgumentException("slot " + slot + " is already on port " + target.port());
        }
        String s = Integer.toString(slot);
        target.command("CLUSTER", "SETSLOT", s, "IMPORTING", id(source));
        source.command("CLUSTER", "SETSLOT", s, "MIGRATING", id(target));
        whileMigrating.run();
        while (true) {
            List<?> keys = (List<?>) source.command("CLUSTER", "GETKEYSINSLOT", s, "100");
            if (keys.isEmpty()) {
                break;
            }
            List<String> migrate = new ArrayList<>(List.of("MIGRATE", RedisLauncher.HOST,
                    Integer.toString(target.port()), "", "0", "5000", "KEYS"));
            keys.forEach(k -> migrate.add((String) k));
            source.command(migrate.toArray(String[]::new));
        }
        String targetId = id(target);
        target.command("CLUSTER", "SETSLOT", s, "NODE", targetId);
        source.command("CLUSTER", "SETSLOT", s, "NODE", targetId);
        for (RedisServer node : nodes) {
            if (node != source && node != target && node.isAlive() && !node.isPaused()
                    && ((String) node.command("ROLE").toString()).startsWith("[master")) {
                node.command("CLUSTER", "SETSLOT", s, "NODE", targetId);
            }
        }
    }

    private RedisServer liveNode() {
        return nodes.stream().filter(n -> n.isAlive() && !n.isPaused()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no cluster node is running"));
    }

    @Override
    public void close() {
        CloseAll.close(nodes);
    }

    @Override
    public String toString() {
        return "RedisClusterGroup" + seedUris();
    }
}
