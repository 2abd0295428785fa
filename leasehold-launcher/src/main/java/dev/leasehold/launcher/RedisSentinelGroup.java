package dev.leasehold.launcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;

/**
 * A master with replicas and three Sentinels watching it, all real {@code redis-server} children
 * on free loopback ports. The Sentinels notice a dead master after {@link #DOWN_AFTER} (by default) and need two
 * of three votes to fail over. {@link #close()} ends every process (and the JVM's exit ends any left).
 * {@link #builder()} can route the Sentinels' and the replicas' links to the master through a port
 * of the test's (a fault proxy), so a test can cut the master off from them while its own clients
 * still reach it.
 *
 * <p>Not thread-safe: drive it from the test's thread.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    /** The name the Sentinels know the master by. */
    public static final String MASTER_NAME = "mymaster";
    /** How long a master must stay silent before a Sentinel calls it down, unless {@link #start(int, String, Duration)} says otherwise. */
    public static final Duration DOWN_AFTER = Duration.ofMillis(1000);
    private static final int SENTINELS = 3;

    private final List<RedisServer> servers;
    private final List<RedisServer> sentinels;
    private final String password;
    /** The port the Sentinels and replicas dial for the first master: its own, or the test's link. */
    private final int firstMasterLink;

    private RedisSentinelGroup(List<RedisServer> servers, List<RedisServer> sentinels, String password,
                               int firstMasterLink) {
        this.servers = servers;
        this.sentinels = sentinels;
        this.password = password;
        this.firstMasterLink = firstMasterLink;
    }

    /** A group to configure, then {@link Builder#start()}: one replica, no password, {@link #DOWN_AFTER}, direct links. */
    public static Builder builder() {
        return new Builder();
    }

    /** The settings of a group to start. Not thread-safe. */
    public static final class Builder {

        private int replicas = 1;
        private String password;
        private Duration downAfter = DOWN_AFTER;
        private IntUnaryOperator masterLink = IntUnaryOperator.identity();

        private Builder() {
        }

        /** How many replicas the master gets, 1..5 (checked by {@link #start()}). */
        public Builder replicas(int replicas) {
            this.replicas = replicas;
            return this;
        }

        /** The data nodes' password (the Sentinels have none), or {@code null} for none. */
        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /** The Sentinels' {@code down-after-milliseconds}. */
        public Builder downAfter(Duration downAfter) {
            this.downAfter = Objects.requireNonNull(downAfter, "downAfter");
            return this;
        }

        /**
         * Routes the first master's links from the Sentinels and from the replicas through a port
         * of the caller's: {@code link} is called once with the master's port, before any replica
         * or Sentinel starts, and returns the 127.0.0.1 port they dial instead (typically a fault
         * proxy forwarding to the master, which the test can black-hole to isolate the master while
         * its own clients dial {@link RedisServer#uri()} directly). Every other link is direct: the
         * Sentinels learn the replicas from the master's {@code INFO}, which names each replica by
         * its own listening port, so the node a failover promotes is announced at an address the
         * test's clients reach. After a failover the demoted master follows the promoted node
         * directly too; only the Sentinels still reach it through the link.
         */
        public Builder masterLink(IntUnaryOperator link) {
            this.masterLink = Objects.requireNonNull(link, "link");
            return this;
        }

        /**
         * Starts the master, its replicas and three Sentinels, and returns once every replica is in
         * sync and every Sentinel knows the replicas and the other Sentinels.
         *
         * @throws IllegalArgumentException if replicas is not in 1..5, or the link returns no port
         * @throws IllegalStateException    if a process fails to start or the group does not settle in
         *                                  30 s; whatever started is stopped then
         */
        public RedisSentinelGroup start() {
            return RedisSentinelGroup.start(this);
        }
    }

    /**
     * Starts a master, {@code replicas} replicas of it and three Sentinels, and returns once every
     * replica is in sync and every Sentinel knows the replicas and the other Sentinels.
     *
     * @param password the data nodes' password (the Sentinels have none), or {@code null}
     * @throws IllegalArgumentException if replicas is not in 1..5
     * @throws IllegalStateException if a process fails to start or the group does not settle in 30 s;
     *                               whatever started is stopped then
     */
    public static RedisSentinelGroup start(int replicas, String password) {
        return builder().replicas(replicas).password(password).start();
    }

    /**
     * As {@link #start(int, String)}, with the Sentinels' {@code down-after-milliseconds} set to
     * {@code downAfter}: longer for tests that freeze the master briefly without wanting a failover.
     */
    public static RedisSentinelGroup start(int replicas, String password, Duration downAfter) {
        return builder().replicas(replicas).password(password).downAfter(downAfter).start();
    }

    private static RedisSentinelGroup start(Builder settings) {
        int replicas = settings.replicas;
        String password = settings.password;
        Duration downAfter = settings.downAfter;
        if (replicas < 1 || replicas > 5) {
            throw new IllegalArgumentException("replicas must be between 1 and 5, was " + replicas);
        }
        List<RedisServer> servers = new ArrayList<>();
        List<RedisServer> sentinels = new ArrayList<>();
        try {
            servers.add(dataNode(password).start());
            int linkPort = settings.masterLink.applyAsInt(servers.get(0).port());
            if (linkPort < 1 || linkPort > 65535) {
                throw new IllegalArgumentException("the master link must return a port between 1 and 65535, returned "
                        + linkPort);
            }
            for (int i = 0; i < replicas; i++) {
                servers.add(dataNode(password).arg("--replicaof", RedisLauncher.HOST, Integer.toString(linkPort)).start());
            }
            Await.until("replicas in sync with port " + linkPort, () -> servers.stream().skip(1).allMatch(replica ->
                    ((String) replica.command("INFO", "replication")).contains("master_link_status:up")));
            // Naming the replicas saves the Sentinels their first discovery round (an INFO every 10 s).
            StringBuilder config = new StringBuilder()
                    .append("sentinel monitor " + MASTER_NAME + " " + RedisLauncher.HOST + " " + linkPort + " 2\n")
                    .append("sentinel down-after-milliseconds " + MASTER_NAME + " " + downAfter.toMillis() + "\n")
                    .append("sentinel failover-timeout " + MASTER_NAME + " 4000\n");
            if (password != null) {
                config.append("sentinel auth-pass " + MASTER_NAME + " " + password + "\n");
            }
            servers.stream().skip(1).forEach(replica -> config.append("sentinel known-replica " + MASTER_NAME + " "
                    + RedisLauncher.HOST + " " + replica.port() + "\n"));
            for (int i = 0; i < SENTINELS; i++) {
                RedisServer sentinel = RedisServer.builder().configFile(config.toString()).arg("--sentinel").start();
                sentinels.add(sentinel);
                try {
                    // Redis 7: refresh the replicas' INFO every second, not every 10 s, so a forced
                    // failover never finds them stale (NOGOODSLAVE) for long.
                    sentinel.command("SENTINEL", "DEBUG", "info-period", "1000");
                } catch (RedisReplyException olderThanSeven) {
                    // failover() retries instead
                }
            }
            RedisSentinelGroup group = new RedisSentinelGroup(servers, sentinels, password, linkPort);
            group.awaitSettled(servers.get(0));
            return group;
        } catch (RuntimeException e) {
            List<RedisServer> started = new ArrayList<>(sentinels);
            started.addAll(servers);
            throw CloseAll.closeAfter(e, started);
        }
    }

    private static RedisServerBuilder dataNode(String password) {
        RedisServerBuilder builder = RedisServer.builder();
        if (password != null) {
            builder.requirePass(password).arg("--masterauth", password);
        }
        return builder;
    }

    /**
     * Lettuce's Sentinel URI for this group, {@code redis-sentinel://[password@]127.0.0.1:P1,...#mymaster};
     * the password (when there is one) is the data nodes'.
     */
    public String uri() {
        String hosts = sentinels.stream().map(s -> RedisLauncher.HOST + ":" + s.port()).collect(Collectors.joining(","));
        return "redis-sentinel://" + (password == null ? "" : password + "@") + hosts + "#" + MASTER_NAME;
    }

    /** The data nodes: the first started as master, the others as its replicas. */
    public List<RedisServer> servers() {
        return List.copyOf(servers);
    }

    public List<RedisServer> sentinels() {
        return List.copyOf(sentinels);
    }

    /**
     * The data node the first live Sentinel names as master right now.
     *
     * @throws IllegalStateException if no Sentinel answers or it names an unknown node
     */
    public RedisServer master() {
        for (RedisServer sentinel : sentinels) {
            if (!sentinel.isAlive() || sentinel.isPaused()) {
                continue;
            }
            Object reply = sentinel.command("SENTINEL", "get-master-addr-by-name", MASTER_NAME);
            int port = Integer.parseInt((String) ((List<?>) reply).get(1));
            return servers.stream().filter(s -> isDialedAt(s, port)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("Sentinel names unknown master port " + port));
        }
        throw new IllegalStateException("no Sentinel is running");
    }

    /** The replicas of the current master. */
    public List<RedisServer> replicas() {
        RedisServer master = master();
        return servers.stream().filter(s -> s != master).toList();
    }

    /**
     * Asks a Sentinel to fail over at once ({@code SENTINEL FAILOVER}, no agreement needed) and
     * waits until a replica is promoted and the old master follows it.
     *
     * @return the new master
     * @throws IllegalStateException if that does not happen within 30 s
     */
    public RedisServer failover() {
        RedisServer old = master();
        // NOGOODSLAVE while the Sentinel's view of the replicas is stale; INPROG while one runs.
        Await.until("a Sentinel to accept SENTINEL FAILOVER", () -> {
            sentinels.get(0).command("SENTINEL", "FAILOVER", MASTER_NAME); // a refusal is retried
            return true;
        });
        RedisServer promoted = awaitNewMaster(old);
        awaitSettled(promoted);
        return promoted;
    }

    /**
     * Waits until every live Sentinel names a master other than {@code old} and that node says it
     * is a master: after {@link RedisServer#kill()} of the master this takes the down-after time
     * plus an election, a few seconds.
     *
     * @throws IllegalStateException if it does not happen within 30 s
     */
    public RedisServer awaitNewMaster(RedisServer old) {
        Await.until("a Sentinel failover away from port " + old.port(), () -> {
            for (RedisServer sentinel : sentinels) {
                if (!sentinel.isAlive() || sentinel.isPaused()) {
                    continue;
                }
                List<?> reply = (List<?>) sentinel.command("SENTINEL", "get-master-addr-by-name", MASTER_NAME);
                if (isDialedAt(old, Integer.parseInt((String) reply.get(1)))) {
                    return false;
                }
            }
            RedisServer now = master();
            return String.valueOf(now.command("ROLE").toString()).startsWith("[master");
        });
        return master();
    }

    /**
     * Waits until every live replica follows {@code master} with its link up, and every Sentinel
     * knows the live replicas and the two other Sentinels.
     */
    private void awaitSettled(RedisServer master) {
        List<RedisServer> live = servers.stream().filter(s -> s != master && s.isAlive() && !s.isPaused()).toList();
        Await.until("replicas in sync and Sentinels aware of each other", () -> {
            for (RedisServer replica : live) {
                String info = (String) replica.command("INFO", "replication");
                if (!info.contains("master_port:" + dialedPort(master)) || !info.contains("master_link_status:up")) {
                    return false;
                }
            }
            for (RedisServer sentinel : sentinels) {
                List<?> fields = (List<?>) sentinel.command("SENTINEL", "MASTER", MASTER_NAME);
                if (!field(fields, "port").equals(Integer.toString(dialedPort(master)))
                        || Integer.parseInt(field(fields, "num-other-sentinels")) < SENTINELS - 1
                        || Integer.parseInt(field(fields, "num-slaves")) < live.size()) {
                    return false;
                }
            }
            return true;
        });
    }

    /** The port the Sentinels and replicas dial for {@code master}: the first master's link, else its own. */
    private int dialedPort(RedisServer master) {
        return master == servers.get(0) ? firstMasterLink : master.port();
    }

    /** Whether a Sentinel naming {@code port} means {@code server}: its own port, or the first master's link. */
    private boolean isDialedAt(RedisServer server, int port) {
        return server.port() == port || (server == servers.get(0) && port == firstMasterLink);
    }

    private static String field(List<?> flat, String name) {
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            if (name.equals(flat.get(i))) {
                return String.valueOf(flat.get(i + 1));
            }
        }
        return "";
    }


    /** Ends every Sentinel and data node. */
    @Override
    public void close() {
        List<RedisServer> all = new ArrayList<>(sentinels);
        all.addAll(servers);
        CloseAll.close(all);
    }

    @Override
    public String toString() {
        return "RedisSentinelGroup[" + uri().replaceFirst("//[^@]*@", "//") + "]";
    }
}
