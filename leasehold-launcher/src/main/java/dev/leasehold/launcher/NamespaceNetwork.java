package dev.leasehold.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A private network of Linux network namespaces, one per host, whose links a test can cut and heal:
 * the partition nemesis for servers that a per-destination proxy cannot partition (an etcd member
 * dials one advertised peer URL per member, so a proxy cannot tell which member a connection comes
 * from).
 *
 * <p>Each host is a namespace with one address in a private {@code 10.213.S.0/24} (S random per
 * network, checked unused under a lock file shared by every JVM on the machine), on a bridge in the
 * test JVM's own (root) namespace, which holds {@code 10.213.S.1} ({@link #testJvmAddress()}): the
 * test's clients reach every host directly. A cut is a pair of {@code blackhole} routes, one in each
 * side's namespace, so packets are dropped silently both ways (no reset, no error: connections hang,
 * as on a real partition); a heal deletes them.
 *
 * <p>Needs root (or {@code CAP_NET_ADMIN} and {@code CAP_SYS_ADMIN}) and {@code ip} from iproute2.
 * Only the namespaces, interfaces and routes this class creates are touched. Everything is deleted by
 * {@link #close()}, by a failed {@link #create(int)}, and by a JVM shutdown hook; what a killed JVM
 * left behind (its pid is in every name and interface alias) is swept by the next {@link #create(int)}.
 */
public final class NamespaceNetwork implements AutoCloseable {

    private static final Duration IP_TIMEOUT = Duration.ofSeconds(10);
    private static final String PREFIX = "leasehold-";
    /** Namespace names: {@code leasehold-<owner pid>-<network id>-h<host>}. */
    private static final Pattern NAMESPACE = Pattern.compile("^" + PREFIX + "(\\d+)-([a-z0-9]+)-h\\d+");
    /** Interface aliases: {@code leasehold <owner pid> <network id>}. */
    private static final Pattern ALIAS = Pattern.compile("^leasehold (\\d+) ([a-z0-9]+)");
    private static final Pattern BLACKHOLE = Pattern.compile("(?m)^blackhole (10\\.213\\.(\\d+)\\.\\d+)");
    /** One path for every JVM (not java.io.tmpdir, which a build may set per module). */
    private static final Path LOCK_FILE = Path.of("/tmp", "leasehold-netns.lock");
    private static final int MAX_HOSTS = 200;
    /** What a close at exit fails to delete, the next {@link #create(int)} sweeps. */
    private static final OpenAtExit<NamespaceNetwork> OPEN = new OpenAtExit<>("leasehold-netns-reaper", NamespaceNetwork::close);

    private final String id;
    private final int subnet;
    private final int hosts;
    private final long owner = ProcessHandle.current().pid();
    /** The routes of the cuts in place, as "namespace|address" ("" for the root namespace). */
    private final Set<String> blackholes = new LinkedHashSet<>();
    private final List<String> createdNamespaces = new ArrayList<>();
    private boolean bridgeCreated;
    private boolean closed;

    private NamespaceNetwork(String id, int subnet, int hosts) {
        this.id = id;
        this.subnet = subnet;
        this.hosts = hosts;
    }

    /**
     * Creates {@code hosts} namespaces on a new bridge, each with its address and loopback up, after
     * sweeping what killed JVMs left behind.
     *
     * @throws IllegalArgumentException if hosts is not in [1, 200]
     * @throws IllegalStateException if an {@code ip} command fails (not root, no iproute2), or no
     *                               {@code 10.213.S.0/24} is free; nothing created is left behind
     */
    public static NamespaceNetwork create(int hosts) {
        if (hosts < 1 || hosts > MAX_HOSTS) {
            throw new IllegalArgumentException("hosts must be 1 to " + MAX_HOSTS + ", got " + hosts);
        }
        String id = Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36 * 36, 36L * 36 * 36 * 36 * 36 * 36), 36);
        try (FileChannel channel = FileChannel.open(LOCK_FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = channel.lock()) {
            sweepStale();
            NamespaceNetwork network = new NamespaceNetwork(id, freeSubnet(), hosts);
            try {
                network.build();
            } catch (RuntimeException e) {
                network.closeQuietly(e);
                throw e;
            }
            OPEN.add(network);
            return network;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + LOCK_FILE + " to pick a free subnet", e);
        }
    }

    private void build() {
        String bridge = bridge();
        ip("link", "add", bridge, "type", "bridge");
        bridgeCreated = true;
        ip("link", "set", bridge, "alias", alias());
        ip("addr", "add", testJvmAddress() + "/24", "dev", bridge);
        ip("link", "set", bridge, "up");
        for (int host = 0; host < hosts; host++) {
            String namespace = namespace(host);
            ip("netns", "add", namespace);
            createdNamespaces.add(namespace);
            String outside = "lh" + id + "v" + host;
            String inside = "lh" + id + "p" + host;
            ip("link", "add", outside, "type", "veth", "peer", "name", inside);
            ip("link", "set", outside, "alias", alias());
            ip("link", "set", outside, "master", bridge, "up");
            ip("link", "set", inside, "netns", namespace);
            ip("-n", namespace, "link", "set", inside, "name", "eth0");
            ip("-n", namespace, "addr", "add", address(host) + "/24", "dev", "eth0");
            ip("-n", namespace, "link", "set", "eth0", "up");
            ip("-n", namespace, "link", "set", "lo", "up");
        }
    }

    /** Number of hosts. */
    public int size() {
        return hosts;
    }

    /** The address of {@code host} ({@code 10.213.S.(10 + host)}), reachable from the test JVM. */
    public String address(int host) {
        checkHost(host);
        return "10.213." + subnet + "." + (10 + host);
    }

    /** The test JVM's own address on the bridge: where a host sees the test's clients come from. */
    public String testJvmAddress() {
        return "10.213." + subnet + ".1";
    }

    /** The name of {@code host}'s namespace, for {@code ip netns exec}. */
    public String namespace(int host) {
        checkHost(host);
        return PREFIX + owner + "-" + id + "-h" + host;
    }

    /**
     * {@code command} prefixed so that it runs inside {@code host}'s namespace. {@code ip netns exec}
     * execs the command in place (no fork), so the started process's pid is the command's own: it can
     * be signalled (SIGSTOP, SIGKILL) like any child.
     */
    public List<String> inside(int host, List<String> command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace(host)));
        full.addAll(command);
        return full;
    }

    /**
     * Cuts the link between hosts {@code a} and {@code b} both ways; idempotent.
     *
     * @throws IllegalArgumentException if a host is out of range or a equals b
     */
    public synchronized void cut(int a, int b) {
        checkPair(a, b);
        blackhole(namespace(a), address(b));
        blackhole(namespace(b), address(a));
    }

    /** Heals the link between {@code a} and {@code b} (a link not cut stays as it is). */
    public synchronized void heal(int a, int b) {
        checkPair(a, b);
        unblackhole(namespace(a), address(b));
        unblackhole(namespace(b), address(a));
    }

    /** Cuts {@code host} from every other host; the test JVM still reaches it. */
    public synchronized void isolate(int host) {
        for (int other = 0; other < hosts; other++) {
            if (other != host) {
                cut(host, other);
            }
        }
    }

    /** Cuts the link between the test JVM (every client in it) and {@code host}, both ways. */
    public synchronized void cutFromTestJvm(int host) {
        blackhole(namespace(host), testJvmAddress());
        blackhole("", address(host));
    }

    /** Heals the link between the test JVM and {@code host}. */
    public synchronized void healFromTestJvm(int host) {
        unblackhole(namespace(host), testJvmAddress());
        unblackhole("", address(host));
    }

    /** Whether some cut is in place. */
    public synchronized boolean anyCut() {
        return !blackholes.isEmpty();
    }

    /** Heals every cut. */
    public synchronized void healAll() {
        for (String route : List.copyOf(blackholes)) {
            int bar = route.indexOf('|');
            unblackhole(route.substring(0, bar), route.substring(bar + 1));
        }
    }

    private void blackhole(String namespace, String address) {
        if (blackholes.add(namespace + "|" + address)) {
            ip(inNamespace(namespace, "route", "add", "blackhole", address + "/32"));
        }
    }

    private void unblackhole(String namespace, String address) {
        if (blackholes.remove(namespace + "|" + address)) {
            ip(inNamespace(namespace, "route", "del", "blackhole", address + "/32"));
        }
    }

    private static String[] inNamespace(String namespace, String... args) {
        if (namespace.isEmpty()) {
            return args;
        }
        return Stream.concat(Stream.of("-n", namespace), Stream.of(args)).toArray(String[]::new);
    }

    /**
     * Deletes every namespace (which deletes its veth pair), the bridge and the test JVM's routes;
     * idempotent. Processes still running inside a namespace keep it alive until they exit: stop them
     * first.
     *
     * @throws IllegalStateException if an {@code ip} command fails (the rest is still deleted)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        OPEN.remove(this);
        List<Runnable> steps = new ArrayList<>();
        for (String route : List.copyOf(blackholes)) {
            if (route.startsWith("|")) {
                steps.add(() -> ip("route", "del", "blackhole", route.substring(1) + "/32"));
            }
        }
        blackholes.clear();
        for (String namespace : createdNamespaces) {
            steps.add(() -> ip("netns", "del", namespace));
        }
        if (bridgeCreated) {
            steps.add(() -> ip("link", "del", bridge()));
        }
        CloseAll.each(steps, Runnable::run);
    }

    private void closeQuietly(RuntimeException failure) {
        try {
            close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private String bridge() {
        return "lhb" + id;
    }

    private String alias() {
        return "leasehold " + owner + " " + id;
    }

    private void checkHost(int host) {
        if (host < 0 || host >= hosts) {
            throw new IllegalArgumentException("host must be 0 to " + (hosts - 1) + ", got " + host);
        }
    }

    private void checkPair(int a, int b) {
        checkHost(a);
        checkHost(b);
        if (a == b) {
            throw new IllegalArgumentException("a link joins two different hosts, got " + a + " twice");
        }
    }

    /** A third octet S such that nothing on this machine uses 10.213.S.0/24 (routes and addresses). */
    private static int freeSubnet() {
        String inUse = ip("-4", "route", "show", "table", "all") + ip("-4", "-o", "addr", "show");
        List<Integer> candidates = new ArrayList<>();
        for (int s = 0; s < 256; s++) {
            if (!inUse.contains("10.213." + s + ".")) {
                candidates.add(s);
            }
        }
        if (candidates.isEmpty()) {
            throw new IllegalStateException("every 10.213.S.0/24 is in use on this machine; close other networks");
        }
        return candidates.get(ThreadLocalRandom.current().nextInt(candidates.size()));
    }

    /**
     * Deletes the namespaces and interfaces whose owner pid is no longer running, and the test-JVM
     * blackhole routes into a 10.213.S.0/24 no bridge holds any more.
     *
     * @return how many namespaces and interfaces were deleted
     */
    static int sweepStale() {
        int swept = 0;
        for (String line : ip("netns", "list").split("\n")) {
            Matcher name = NAMESPACE.matcher(line.strip());
            if (name.find() && !alive(Long.parseLong(name.group(1)))) {
                ip("netns", "del", line.strip().split("\\s+")[0]);
                swept++;
            }
        }
        try (Stream<Path> links = Files.list(Path.of("/sys/class/net"))) {
            for (Path link : links.filter(path -> path.getFileName().toString().startsWith("lh")).toList()) {
                Matcher alias = ALIAS.matcher(readAlias(link));
                if (alias.find() && !alive(Long.parseLong(alias.group(1)))) {
                    try {
                        ip("link", "del", link.getFileName().toString());
                        swept++;
                    } catch (IllegalStateException gone) {
                        // a veth goes by itself once its peer's namespace is deleted, maybe just now
                        if (Files.exists(link)) {
                            throw gone;
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list /sys/class/net", e);
        }
        String addresses = ip("-4", "-o", "addr", "show");
        Matcher route = BLACKHOLE.matcher(ip("-4", "route", "show", "type", "blackhole"));
        while (route.find()) {
            if (!addresses.contains("10.213." + route.group(2) + ".1/24")) {
                ip("route", "del", "blackhole", route.group(1) + "/32");
            }
        }
        return swept;
    }

    private static String readAlias(Path link) {
        try {
            return Files.readString(link.resolve("ifalias")).strip();
        } catch (IOException gone) {
            return "";
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Runs {@code ip args...} and returns its output. */
    private static String ip(String... args) {
        String[] command = Stream.concat(Stream.of("ip"), Stream.of(args)).toArray(String[]::new);
        Exec.Result result;
        try {
            result = Exec.run(IP_TIMEOUT, command);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run ip (install iproute2): " + String.join(" ", command), e);
        }
        if (!result.succeeded()) {
            throw new IllegalStateException(String.join(" ", command) + " failed (exit code " + result.exitCode()
                    + "; network namespaces need root): " + result.output().strip());
        }
        return result.output();
    }

    @Override
    public String toString() {
        return "NamespaceNetwork[" + hosts + " hosts on 10.213." + subnet + ".0/24]";
    }
}
