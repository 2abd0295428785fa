package dev.leasehold.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * A real cluster of {@code etcd} 3.4 processes (Debian's {@code etcd-server}, from
 * {@code LEASEHOLD_ETCD}, else {@code PATH}) on free loopback ports, which a test can freeze, and
 * whose members it can kill and restart one at a time (a killed leader is replaced by election).
 *
 * <p>Data lives in {@code /dev/shm} when it exists (etcd fsyncs every write; on tmpfs that costs
 * nothing, so a test measures the protocol, not the disk), else in the temporary directory. Elections
 * are tuned short (heartbeat 50 ms, election timeout 650 ms), so a lost leader is replaced within about
 * a second; the shortest lease etcd then grants is 1 s (1.5 election timeouts, rounded up to seconds). Every process is killed and the data deleted by
 * {@link #close()}, and by a shutdown hook if a test fails to close it.
 *
 * <p>{@link #startPartitionable(int)} runs each member in a network namespace of its own
 * ({@link NamespaceNetwork}, one host per member, host {@code i} = member {@code i}), so a test can
 * cut the links between members (their peer URLs) while its clients still reach every member, or
 * cut the test's clients from a member: {@link #network()}.
 */
public final class EtcdCluster implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\"\\s*:\\s*\"?(\\d+)");
    private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"?(\\d+)");

    private final String binary;
    private final Path dir;
    private final int[] clientPorts;
    private final int[] peerPorts;
    private final Process[] processes;
    private final boolean[] paused;
    private final NamespaceNetwork network;

    private EtcdCluster(String binary, Path dir, int members, NamespaceNetwork network) {
        this.binary = binary;
        this.dir = dir;
        this.network = network;
        this.clientPorts = IntStream.range(0, members).map(i -> FreePorts.find()).toArray();
        this.peerPorts = IntStream.range(0, members).map(i -> FreePorts.find()).toArray();
        this.processes = new Process[members];
        this.paused = new boolean[members];
    }

    /**
     * Starts {@code members} etcd processes forming one new cluster, and returns once every member
     * reports itself healthy (a leader is elected).
     *
     * @throws IllegalArgumentException if members is not 1, 3 or 5
     * @throws IllegalStateException if no etcd binary is found, or the cluster is not healthy within 20 s
     *                               (then nothing is left running)
     */
    public static EtcdCluster start(int members) {
        return start(members, false);
    }

    /**
     * Like {@link #start(int)}, with each member in its own network namespace on a private bridge
     * ({@link #network()}): the members' links to each other and to the test's clients can be cut.
     *
     * @throws IllegalArgumentException if members is not 1, 3 or 5
     * @throws IllegalStateException if no etcd binary is found, the namespaces cannot be created (root is
     *                               needed), or the cluster is not healthy within 20 s (then nothing is
     *                               left running or created)
     */
    public static EtcdCluster startPartitionable(int members) {
        return start(members, true);
    }

    private static EtcdCluster start(int members, boolean partitionable) {
        if (members != 1 && members != 3 && members != 5) {
            throw new IllegalArgumentException("members must be 1, 3 or 5, got " + members);
        }
        String binary = locate();
        Path dir;
        try {
            Path shm = Path.of("/dev/shm");
            dir = Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "leasehold-etcd-") : Files.createTempDirectory("leasehold-etcd-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for etcd", e);
        }
        ShutdownReaper.register(dir);
        NamespaceNetwork network;
        try {
            network = partitionable ? NamespaceNetwork.create(members) : null;
        } catch (RuntimeException e) {
            Directories.deleteRegistered(dir, "etcd");
            throw e;
        }
        EtcdCluster cluster = new EtcdCluster(binary, dir, members, network);
        try {
            for (int i = 0; i < members; i++) {
                cluster.launch(i, "new");
            }
            for (int i = 0; i < members; i++) {
                cluster.awaitHealthy(i);
            }
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private static String locate() {
        String configured = System.getenv("LEASEHOLD_ETCD");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        for (String entry : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path candidate = Path.of(entry.isEmpty() ? "." : entry, "etcd");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IllegalStateException("no etcd binary: install Debian's etcd-server (apt-get install -y "
                + "etcd-server) or set LEASEHOLD_ETCD to an etcd 3.4+ binary");
    }

    private void launch(int member, String state) {
        String cluster = String.join(",", IntStream.range(0, processes.length)
                .mapToObj(i -> name(i) + "=" + peerUrl(i)).toList());
        List<String> command = new ArrayList<>(List.of(binary,
                "--name", name(member),
                "--data-dir", dir.resolve(name(member)).toString(),
                "--listen-client-urls", endpoint(member),
                "--advertise-client-urls", endpoint(member),
                "--listen-peer-urls", peerUrl(member),
                "--initial-advertise-peer-urls", peerUrl(member),
                "--initial-cluster", cluster,
                "--initial-cluster-state", state,
                "--initial-cluster-token", dir.getFileName().toString(),
                "--heartbeat-interval", "50",
                "--election-timeout", "650",
                "--logger", "zap",
                "--log-level", "warn",
                "--log-outputs", dir.resolve(name(member) + ".log").toString()));
        try {
            Process process = new ProcessBuilder(network == null ? command : network.inside(member, command))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name(member) + ".out").toFile()))
                    .start();
            ShutdownReaper.register(process);
            processes[member] = process;
            paused[member] = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
    }

    private void awaitHealthy(int member) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!processes[member].isAlive()) {
                throw new IllegalStateException("etcd member " + member + " exited with "
                        + processes[member].exitValue() + "; see " + dir.resolve(name(member) + ".out"));
            }
            String health = post(member, "/health", null);
            if (health != null && health.contains("\"health\":\"true\"")) {
                return;
            }
            sleep(50);
        }
        throw new IllegalStateException("etcd member " + member + " was not healthy within " + READY_TIMEOUT);
    }

    /** Number of members. */
    public int size() {
        return processes.length;
    }

    /** {@code http://HOST:PORT} of member {@code i}'s client port (HOST is 127.0.0.1 unless partitionable). */
    public String endpoint(int member) {
        return "http://" + host(member) + ":" + clientPorts[member];
    }

    /**
     * The network the members run in, to cut and heal their links (host {@code i} is member {@code i}).
     *
     * @throws IllegalStateException if the cluster was not started with {@link #startPartitionable(int)}
     */
    public NamespaceNetwork network() {
        if (network == null) {
            throw new IllegalStateException("this cluster runs on loopback; start it with "
                    + "EtcdCluster.startPartitionable(members) to cut its links");
        }
        return network;
    }

    /** The client port of member {@code i}, which stays the same across {@link #restart(int)}. */
    public int clientPort(int member) {
        return clientPorts[member];
    }

    /** Every member's client endpoint, comma-separated, as a client's endpoint list. */
    public String endpoints() {
        return String.join(",", IntStream.range(0, processes.length).mapToObj(this::endpoint).toList());
    }

    /**
     * The index of the member that is leader now, asking each live, running member in turn.
     *
     * @throws IllegalStateException if no member names a leader within 10 s
     */
    public int leader() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadline < 0) {
            for (int i = 0; i < processes.length; i++) {
                if (!processes[i].isAlive() || paused[i]) {
                    continue;
                }
                String status = post(i, "/v3/maintenance/status", "{}");
                if (status == null) {
                    continue;
                }
                Matcher self = MEMBER_ID.matcher(status);
                Matcher leader = LEADER.matcher(status);
                if (self.find() && leader.find() && self.group(1).equals(leader.group(1))) {
                    return i;
                }
            }
            sleep(50);
        }
        throw new IllegalStateException("no etcd member reports being the leader");
    }

    /** The pid of member {@code i}'s current process. */
    public long pid(int member) {
        return processes[member].pid();
    }

    /** Kills member {@code i} with SIGKILL (a crash) and waits for it to exit; its data stays. */
    public void kill(int member) {
        RedisLauncher.killAndWait(processes[member]);
        paused[member] = false;
    }

    /**
     * Starts a killed member again on its ports and data, and waits until it is healthy.
     *
     * @throws IllegalStateException if it is still running, or not healthy within 20 s
     */
    public void restart(int member) {
        if (processes[member].isAlive()) {
            throw new IllegalStateException("etcd member " + member + " is still running; kill it first");
        }
        launch(member, "existing");
        awaitHealthy(member);
    }

    /** Freezes every running member with SIGSTOP: connections stay open, nothing is answered. */
    public void pauseAll() {
        for (int i = 0; i < processes.length; i++) {
            if (processes[i].isAlive()) {
                Signals.stop(processes[i].pid());
                paused[i] = true;
            }
        }
    }

    /** Resumes every paused member with SIGCONT. */
    public void resumeAll() {
        for (int i = 0; i < processes.length; i++) {
            if (processes[i].isAlive() && paused[i]) {
                Signals.cont(processes[i].pid());
            }
            paused[i] = false;
        }
    }

    /**
     * Kills every member (SIGKILL ends a paused one too), then deletes the network namespaces (if
     * partitionable) and the data, even when one member does not exit (that failure is thrown
     * afterwards); idempotent.
     */
    @Override
    public void close() {
        try {
            // One member that outlives its SIGKILL must not strand the others; the waits run through an interrupt.
            CloseAll.each(Arrays.asList(processes), process -> {
                if (process != null) {
                    RedisLauncher.killAndWait(process);
                }
            });
        } finally {
            try {
                if (network != null) {
                    network.close();
                }
            } finally {
                Directories.deleteRegistered(dir, "etcd");
            }
        }
    }

    private String name(int member) {
        return "m" + member;
    }

    private String peerUrl(int member) {
        return "http://" + host(member) + ":" + peerPorts[member];
    }

    private String host(int member) {
        return network == null ? "127.0.0.1" : network.address(member);
    }

    /** The body of a GET (no body) or POST to member {@code i}, or null if it does not answer in 1 s. */
    private String post(int member, String path, String body) {
        try {
            HttpURLConnection http = (HttpURLConnection) URI.create(endpoint(member) + path).toURL().openConnection();
            http.setConnectTimeout(1_000);
            http.setReadTimeout(1_000);
            http.setRequestProperty("Connection", "close");
            if (body != null) {
                http.setRequestMethod("POST");
                http.setDoOutput(true);
                try (OutputStream out = http.getOutputStream()) {
                    out.write(body.getBytes(StandardCharsets.UTF_8));
                }
            }
            try (InputStream in = http.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                http.disconnect();
            }
        } catch (IOException notYet) {
            return null;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for etcd", e);
        }
    }

    @Override
    public String toString() {
        return "EtcdCluster[" + endpoints() + "]";
    }
}
