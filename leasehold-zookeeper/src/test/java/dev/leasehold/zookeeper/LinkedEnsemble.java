package dev.leasehold.zookeeper;

import dev.leasehold.launcher.FreePorts;
import dev.leasehold.testkit.fault.FaultProxy;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A real three-server ZooKeeper ensemble in this JVM whose member-to-member links can be cut: every
 * server's static configuration lists the <em>other</em> servers' quorum and election addresses
 * through one {@link FaultProxy} per directed link (ZooKeeper's static configuration may differ per
 * server, since no version is given and reconfiguration is off), while each server binds its own
 * real ports. {@link #isolate(int)} black-holes every link to and from one server while its clients
 * still reach it on its client port: the follower-or-leader-cut-off fault that lock bugs hide
 * behind.
 *
 * <p><b>Why in-JVM peers behind proxies, not child JVMs or network namespaces.</b> The peers start
 * in about a second each from per-server properties, on loopback, with nothing to clean up but
 * threads and a temporary directory; proxies give per-link control without root. Network
 * namespaces would also cut election traffic natively, but need root and veth plumbing whose
 * leftovers outlive a crashed test.
 *
 * <p><b>Election links.</b> ZooKeeper keeps only election connections initiated by the higher server
 * id; when a lower id connects, the receiver drops the connection and calls back to the address
 * the initiator advertised (its own, real one), which would bypass the proxies. So the proxies for
 * lower-to-higher election links refuse every connection: the higher id always initiates through
 * its proxy, and every election connection crosses a proxy that {@link #isolate(int)} can cut. So
 * that a server that comes up late is never a lower id waiting for higher ones that have already
 * elected (they would never call it), the servers start in ascending ids, each once it listens.
 * Quorum (follower-to-leader) connections are initiated by the follower from its own configuration,
 * always through a proxy. Tick 200 ms, syncLimit {@value #SYNC_LIMIT}, initLimit 10; every four-letter word is
 * whitelisted so tests can read {@code conf}, {@code wchc} and {@code srvr}.
 */
final class LinkedEnsemble implements AutoCloseable {

    static final int TICK_MILLIS = 200;
    /**
     * 25 ticks: a follower cut off from the leader keeps serving its clients 5 s, longer than the
     * tests' 3 s sessions, as with the 15 s session and syncLimit 10 × 2 s ticks.
     */
    static final int SYNC_LIMIT = 25;
    static final int SERVERS = 3;

    /** A quorum peer whose shutdown this ensemble can call. */
    private static final class Peer extends QuorumPeerMain {
        void stop() {
            if (quorumPeer != null) {
                quorumPeer.shutdown();
            }
        }
    }

    private final Path directory;
    private final int[] clientPorts = new int[SERVERS + 1];
    private final int[] quorumPorts = new int[SERVERS + 1];
    private final int[] electionPorts = new int[SERVERS + 1];
    /** Directed link "from-to" to its quorum and election proxies. */
    private final Map<String, FaultProxy[]> links = new HashMap<>();
    private final List<Peer> peers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    /**
     * Starts the ensemble, trying again (on new ports) up to twice if it does not come up: a port
     * found free may be taken before its server binds it (a proxy's or an outgoing connection's
     * ephemeral port), and the server then never listens.
     */
    static LinkedEnsemble start() throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return new LinkedEnsemble();
            } catch (IllegalStateException notUp) {
                if (attempt == 3) {
                    throw notUp;
                }
                System.out.println("linked ensemble did not come up (" + notUp.getMessage() + "), starting it again");
            }
        }
    }

    private LinkedEnsemble() throws Exception {
        System.setProperty("zookeeper.forceSync", "no");
        System.setProperty("zookeeper.admin.enableServer", "false");
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        directory = Files.createTempDirectory("leasehold-zk-linked");
        try {
            for (int id = 1; id <= SERVERS; id++) {
                clientPorts[id] = FreePorts.find();
                quorumPorts[id] = FreePorts.find();
                electionPorts[id] = FreePorts.find();
            }
            for (int from = 1; from <= SERVERS; from++) {
                for (int to = 1; to <= SERVERS; to++) {
                    if (from != to) {
                        FaultProxy quorum = FaultProxy.start("127.0.0.1", quorumPorts[to]);
                        FaultProxy election = FaultProxy.start("127.0.0.1", electionPorts[to]);
                        election.refuse(from < to);
                        links.put(from + "-" + to, new FaultProxy[] {quorum, election});
                    }
                }
            }
            // In ascending ids, each once it listens for election connections: a server that joins
            // later has a higher id than the ones already there, so it initiates to each of them
            // (a lower id could not: its election proxies to higher ids refuse).
            for (int id = 1; id <= SERVERS; id++) {
                start(id);
                awaitListening(electionPorts[id]);
            }
            awaitQuorum();
        } catch (Exception | Error failed) {
            close();
            throw failed;
        }
    }

    private static void awaitListening(int port) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try (Socket probe = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no ZooKeeper server listened on election port " + port + " in 30 s");
                }
                Thread.sleep(20);
            }
        }
    }

    /** Waits until one server leads and the others follow. */
    void awaitQuorum() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!(leader() > 0 && modes().values().stream().filter(mode -> mode.equals("follower")).count()
                == SERVERS - 1)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the linked ensemble elected no leader with two followers in 30 s: "
                        + modes());
            }
            Thread.sleep(50);
        }
    }

    private void start(int id) throws IOException, QuorumPeerConfig.ConfigException {
        Path data = Files.createDirectories(directory.resolve("server-" + id));
        Files.writeString(data.resolve("myid"), Integer.toString(id));
        StringBuilder properties = new StringBuilder()
                .append("tickTime=").append(TICK_MILLIS).append('\n')
                .append("initLimit=10\n")
                .append("syncLimit=").append(SYNC_LIMIT).append('\n')
                .append("dataDir=").append(data).append('\n')
                .append("clientPort=").append(clientPorts[id]).append('\n')
                .append("clientPortAddress=127.0.0.1\n")
                .append("maxSessionTimeout=60000\n");
        for (int other = 1; other <= SERVERS; other++) {
            int quorum = other == id ? quorumPorts[id] : links.get(id + "-" + other)[0].port();
            int election = other == id ? electionPorts[id] : links.get(id + "-" + other)[1].port();
            properties.append("server.").append(other).append("=127.0.0.1:").append(quorum).append(':')
                    .append(election).append('\n');
        }
        Path file = data.resolve("zoo.cfg");
        Files.writeString(file, properties);
        QuorumPeerConfig config = new QuorumPeerConfig();
        config.parse(file.toString());
        Peer peer = new Peer();
        Thread thread = new Thread(() -> {
            try {
                peer.runFromConfig(config);
            } catch (Exception stopped) {
                // A peer shut down by close() ends here.
            }
        }, "zk-linked-server-" + id);
        thread.setDaemon(true);
        thread.start();
        peers.add(peer);
        threads.add(thread);
    }

    /** The client address of server {@code id} (1-based), directly, for a client pinned to it. */
    String connectString(int id) {
        return "127.0.0.1:" + clientPorts[id];
    }

    /** Every server but {@code id} (0: every server). */
    String connectStringWithout(int id) {
        StringBuilder hosts = new StringBuilder();
        for (int other = 1; other <= SERVERS; other++) {
            if (other != id) {
                hosts.append(hosts.isEmpty() ? "" : ",").append(connectString(other));
            }
        }
        return hosts.toString();
    }

    int clientPort(int id) {
        return clientPorts[id];
    }

    /** Each server's mode from {@code srvr} ("leader", "follower", or "" when not serving). */
    Map<Integer, String> modes() {
        Map<Integer, String> modes = new HashMap<>();
        for (int id = 1; id <= SERVERS; id++) {
            String mode = "";
            for (String line : FourLetterWords.srvr(clientPorts[id]).split("\n")) {
                if (line.startsWith("Mode: ")) {
                    mode = line.substring("Mode: ".length()).strip();
                }
            }
            modes.put(id, mode);
        }
        return modes;
    }

    /** The id of the server that leads now, or 0. */
    int leader() {
        return modes().entrySet().stream().filter(entry -> entry.getValue().equals("leader"))
                .map(Map.Entry::getKey).findFirst().orElse(0);
    }

    /** A server that follows now. */
    int follower() {
        return modes().entrySet().stream().filter(entry -> entry.getValue().equals("follower"))
                .map(Map.Entry::getKey).findFirst().orElseThrow();
    }

    /**
     * Cuts every quorum and election link to and from server {@code id} (bytes swallowed, connections
     * left open, as a real partition); its client port stays reachable. Close the result to heal.
     */
    AutoCloseable isolate(int id) {
        List<FaultProxy> cut = new ArrayList<>();
        links.forEach((link, proxies) -> {
            String[] ends = link.split("-");
            if (Integer.parseInt(ends[0]) == id || Integer.parseInt(ends[1]) == id) {
                for (FaultProxy proxy : proxies) {
                    proxy.blackhole();
                    cut.add(proxy);
                }
            }
        });
        return () -> cut.forEach(proxy -> {
            proxy.cutAll();
            proxy.pass();
        });
    }

    @Override
    public void close() {
        peers.forEach(Peer::stop);
        for (Thread thread : threads) {
            try {
                thread.join(10_000);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        links.values().forEach(proxies -> Stream.of(proxies).forEach(FaultProxy::close));
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
