package dev.leasehold.launcher;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The partition nemesis itself, on real namespaces with a real {@code redis-server} in each host:
 * what a cut stops, what it leaves alone, that a heal restores it, and that nothing is left behind
 * (by {@link NamespaceNetwork#close()}, and by the sweep after a JVM that could not clean up).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NamespaceNetworkTest {

    private static final int PORT = 6379;
    private final List<Process> servers = new ArrayList<>();
    private NamespaceNetwork network;

    @BeforeAll
    static void needsRoot() {
        assumeThat(ProcessHandle.current().info().user().orElse("")).as("network namespaces need root").isEqualTo("root");
    }

    @AfterEach
    void cleanUp() {
        servers.forEach(RedisLauncher::killAndWait);
        if (network != null) {
            network.close();
        }
    }

    @Test
    void aCutStopsOneLinkBothWaysWhileEveryOtherLinkStaysUpAndAHealRestoresIt() throws Exception {
        network = NamespaceNetwork.create(3);
        for (int host = 0; host < 3; host++) {
            startRedis(host);
        }
        assertThat(fromHost(1, 0)).as("host 1 reaches host 0").isTrue();

        network.cut(0, 1);
        assertThat(fromHost(1, 0)).as("host 1 -> host 0 after the cut").isFalse();
        assertThat(fromHost(0, 1)).as("host 0 -> host 1 after the cut").isFalse();
        assertThat(fromHost(2, 0)).as("host 2 -> host 0, not cut").isTrue();
        assertThat(fromHost(0, 2)).as("host 0 -> host 2, not cut").isTrue();
        assertThat(fromTestJvm(0)).as("the test JVM still reaches host 0").isTrue();
        assertThat(fromTestJvm(1)).as("the test JVM still reaches host 1").isTrue();

        network.heal(0, 1);
        assertThat(fromHost(1, 0)).as("host 1 -> host 0 after the heal").isTrue();
        assertThat(network.anyCut()).isFalse();

        network.isolate(2);
        assertThat(fromHost(0, 2)).isFalse();
        assertThat(fromHost(2, 1)).isFalse();
        assertThat(fromHost(0, 1)).as("the other two still talk").isTrue();
        assertThat(fromTestJvm(2)).as("an isolated host still serves the test's clients").isTrue();
        network.healAll();
        assertThat(fromHost(0, 2)).isTrue();

        network.cutFromTestJvm(1);
        assertThat(fromTestJvm(1)).as("the test JVM -> host 1 after its cut").isFalse();
        assertThat(fromHost(1, 0)).as("host 1 still reaches its peers").isTrue();
        assertThat(fromTestJvm(0)).isTrue();
        network.healFromTestJvm(1);
        assertThat(fromTestJvm(1)).isTrue();
    }

    @Test
    void closeLeavesNoNamespaceInterfaceOrRouteEvenWithCutsInPlace() throws Exception {
        network = NamespaceNetwork.create(2);
        String namespace = network.namespace(0);
        String prefix = namespace.substring(0, namespace.lastIndexOf('-'));
        String subnet = network.testJvmAddress().substring(0, network.testJvmAddress().lastIndexOf('.') + 1);
        network.cut(0, 1);
        network.cutFromTestJvm(1);
        assertThat(run("ip", "netns", "list")).contains(prefix);
        assertThat(run("ip", "route", "show")).contains("blackhole " + network.address(1));

        network.close();
        assertThat(run("ip", "netns", "list")).doesNotContain(prefix);
        assertThat(run("ip", "-o", "link", "show")).doesNotContain("lhb" + prefix.substring(prefix.lastIndexOf('-') + 1));
        assertThat(run("ip", "-4", "route", "show", "table", "all")).doesNotContain(subnet);
        assertThat(run("ip", "-4", "-o", "addr", "show")).doesNotContain(subnet);
    }

    @Test
    void whatAKilledJvmLeftBehindIsSweptByTheNextNetwork() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), NamespaceNetworkProbe.class.getName())
                .redirectErrorStream(true).start();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.exitValue()).as(output).isZero();
        String namespace = output.replaceAll("(?s).*namespace=(\\S+).*", "$1");
        String address = output.replaceAll("(?s).*address=(\\S+).*", "$1");
        String subnet = address.substring(0, address.lastIndexOf('.') + 1);
        assertThat(run("ip", "netns", "list")).as("the halted JVM left its namespaces").contains(namespace);

        network = NamespaceNetwork.create(1);
        String halted = namespace.substring(0, namespace.lastIndexOf('-'));
        assertThat(run("ip", "netns", "list")).doesNotContain(halted);
        assertThat(run("ip", "-o", "link", "show")).doesNotContain(bridge(halted));
        // The swept subnet is free again, and the new network may have drawn it (1 in about 250).
        String ours = bridge(network.namespace(0).substring(0, network.namespace(0).lastIndexOf('-')));
        assertThat(withoutDevice(run("ip", "-4", "route", "show", "table", "all"), ours)).doesNotContain(subnet);
        assertThat(withoutDevice(run("ip", "-4", "-o", "addr", "show"), ours)).doesNotContain(subnet);
    }

    /** The bridge of the network whose namespaces start with {@code prefix} ({@code lhb} and the network's id). */
    private static String bridge(String prefix) {
        return "lhb" + prefix.substring(prefix.lastIndexOf('-') + 1);
    }

    /** {@code listing} without the lines of {@code device}. */
    private static String withoutDevice(String listing, String device) {
        return listing.lines().filter(line -> !line.matches(".*\\b" + device + "\\b.*")).collect(Collectors.joining("\n"));
    }

    private void startRedis(int host) throws IOException {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        Process process = new ProcessBuilder(network.inside(host, List.of(RedisBinary.locate().path().toString(),
                "--bind", network.address(host), "--port", String.valueOf(PORT), "--protected-mode", "no", "--save", "", "--appendonly", "no",
                "--dir", dir.toString())))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        servers.add(process);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!fromTestJvm(host)) {
            assertThat(process.isAlive()).as("redis-server in host " + host).isTrue();
            assertThat(System.nanoTime() - deadline).as("redis-server in host " + host + " answering").isNegative();
        }
    }

    /** Whether the test JVM gets PONG from host's server within 1 s. */
    private boolean fromTestJvm(int host) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(network.address(host), PORT), 1_000);
            socket.setSoTimeout(1_000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readNBytes(7), StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException unreachable) {
            return false;
        }
    }

    /** Whether a client inside {@code from} gets PONG from {@code to}'s server within 2 s. */
    private boolean fromHost(int from, int to) throws IOException, InterruptedException {
        String script = "exec 3<>/dev/tcp/" + network.address(to) + "/" + PORT
                + " && printf 'PING\\r\\n' >&3 && head -c 7 <&3";
        Process client = new ProcessBuilder(network.inside(from, List.of("timeout", "2", "bash", "-c", script)))
                .redirectErrorStream(true).start();
        String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(client.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return client.exitValue() == 0 && output.startsWith("+PONG");
    }

    private static String run(String... command) throws IOException {
        Exec.Result result = Exec.run(Duration.ofSeconds(10), command);
        assertThat(result.succeeded()).as(String.join(" ", command) + ": " + result.output()).isTrue();
        return result.output();
    }
}
