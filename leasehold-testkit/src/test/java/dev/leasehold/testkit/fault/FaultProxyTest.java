package dev.leasehold.testkit.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.launcher.FreePorts;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.launcher.RespClient;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class FaultProxyTest {

    @RegisterExtension
    static final TestServer<RedisServer> redis = TestServer.perClass(() -> RedisServer.builder().start());
    FaultProxy proxy;

    @BeforeEach
    void startProxy() {
        proxy = FaultProxy.start(redis.get().host(), redis.get().port());
    }

    @AfterEach
    void closeProxy() {
        proxy.close();
    }

    @Test
    void passesTrafficThrough() {
        try (RespClient client = connect()) {
            assertThat(client.call("PING")).isEqualTo("PONG");
            assertThat(client.call("SET", "k", "v".repeat(100_000))).isEqualTo("OK");
            assertThat(client.call("GET", "k")).isEqualTo("v".repeat(100_000));
        }
        assertThat(proxy.host()).isEqualTo("127.0.0.1");
    }

    @Test
    void latencyDelaysEachDirectionOnOpenConnections() {
        try (RespClient client = connect()) {
            client.call("PING");
            proxy.latency(Duration.ofMillis(100));

            long start = System.nanoTime();
            assertThat(client.call("PING")).isEqualTo("PONG");
            long roundTripMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertThat(roundTripMillis).isGreaterThanOrEqualTo(200);

            proxy.pass();
            start = System.nanoTime();
            client.call("PING");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(200);
        }
    }

    @Test
    void latencyDoesNotAccumulateOverPipelinedCommands() {
        proxy.latency(Duration.ofMillis(100));
        try (RespClient client = connect()) {
            long start = System.nanoTime();
            for (int i = 0; i < 5; i++) {
                client.send("PING");
            }
            for (int i = 0; i < 5; i++) {
                assertThat(client.read()).isEqualTo("PONG");
            }
            // One round trip plus scheduling slack, not five.
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(200L, 900L);
        }
    }

    @Test
    void blackholeSwallowsCommandsUntilPassAndANewConnectionWorks() {
        proxy.blackhole();
        try (RespClient client = connect()) {
            client.setReadTimeout(Duration.ofMillis(300));
            assertThatThrownBy(() -> client.call("SET", "blackholed", "1"))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(SocketTimeoutException.class);
        }

        proxy.pass();

        try (RespClient client = connect()) {
            assertThat(client.call("PING")).isEqualTo("PONG");
            assertThat(client.call("EXISTS", "blackholed")).isEqualTo(0L);
        }
    }

    @Test
    void heldRepliesArriveOnRelease() throws Exception {
        try (RespClient client = connect()) {
            proxy.holdReplies();
            client.send("INCR", "held");
            CompletableFuture<Object> reply = CompletableFuture.supplyAsync(client::read);

            assertThatThrownBy(() -> reply.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            assertThat(redis.get().command("GET", "held")).as("the command itself went through").isEqualTo("1");

            proxy.releaseReplies();

            assertThat(reply.get(2, TimeUnit.SECONDS)).isEqualTo(1L);
        }
    }

    @Test
    void releaseDeliversEveryHeldReplyInOrder() {
        try (RespClient client = connect()) {
            proxy.holdReplies();
            client.send("SET", "n", "0");
            client.send("INCR", "n");
            client.send("INCR", "n");
            awaitValue("n", "2");

            proxy.releaseReplies();

            assertThat(List.of(client.read(), client.read(), client.read())).isEqualTo(List.of("OK", 1L, 2L));
        }
    }

    @Test
    void cutAllResetsOpenConnectionsButNotTheProxy() {
        try (RespClient client = connect()) {
            assertThat(client.call("PING")).isEqualTo("PONG");

            proxy.cutAll();

            assertThatThrownBy(() -> client.call("PING")).isInstanceOf(UncheckedIOException.class);
        }
        try (RespClient client = connect()) {
            assertThat(client.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void refusedConnectionsAreClosedAtOnce() {
        try (RespClient open = connect()) {
            open.call("PING"); // connect() returns before the proxy accepts; a reply proves it did
            proxy.refuse(true);
            assertThatThrownBy(() -> ping(proxy)).isInstanceOf(UncheckedIOException.class);
            assertThat(open.call("PING")).as("open connections are untouched").isEqualTo("PONG");

            proxy.refuse(false);
            try (RespClient accepted = connect()) {
                assertThat(accepted.call("PING")).isEqualTo("PONG");
            }
        }
    }

    @Test
    void aTargetThatIsDownResetsTheClient() {
        try (FaultProxy nowhere = FaultProxy.start("127.0.0.1", FreePorts.find())) {
            assertThatThrownBy(() -> ping(nowhere)).isInstanceOf(UncheckedIOException.class);
        }
    }

    @Test
    void aConnectionClosedByTheClientEndsItsThreads() throws InterruptedException {
        try (RespClient client = connect()) {
            client.call("PING");
            assertThat(connectionThreads()).hasSize(4);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!connectionThreads().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(connectionThreads()).isEmpty();
    }

    @Test
    void closeLeavesNoProxyThreadBehind() {
        RespClient idle = connect();
        RespClient holding = connect();
        idle.call("PING");
        proxy.holdReplies();
        holding.send("PING");
        assertThat(proxyThreads()).isNotEmpty();

        proxy.close();
        proxy.close();

        assertThat(proxyThreads()).isEmpty();
        assertThatThrownBy(() -> idle.call("PING")).isInstanceOf(UncheckedIOException.class);
        idle.close();
        holding.close();
    }

    @Test
    void rejectsNegativeLatency() {
        assertThatThrownBy(() -> proxy.latency(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("oneWay");
    }

    private RespClient connect() {
        return RespClient.connect(proxy.host(), proxy.port());
    }

    /** The reset may come while connecting or while waiting for the reply, so both are inside. */
    private static Object ping(FaultProxy through) {
        try (RespClient client = RespClient.connect(through.host(), through.port())) {
            return client.call("PING");
        }
    }

    private static void awaitValue(String key, String expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!expected.equals(redis.get().command("GET", key))) {
            assertThat(System.nanoTime()).as("%s never became %s", key, expected).isLessThan(deadline);
        }
    }

    private static List<String> proxyThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(name -> name.startsWith(FaultProxy.THREAD_NAME_PREFIX))
                .toList();
    }

    private static List<String> connectionThreads() {
        return proxyThreads().stream().filter(name -> !name.endsWith("-accept")).toList();
    }
}
