package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.launcher.FreePorts;
import dev.leasehold.launcher.RedisBinary;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.launcher.RespClient;
import dev.leasehold.launcher.TlsMaterial;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Dead servers, credentials and TLS: typed errors that name the server, and nothing left behind. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisConnectionTest {

    @Test
    void connectingToADeadServerFailsFastNamingTheServerAndLeavesNoThread() throws Exception {
        Set<String> threadsBefore = ServerProbe.clientThreads();
        int port = FreePorts.find();
        long start = System.nanoTime();
        assertThatThrownBy(() -> RedisLocks.builder().uri("redis://127.0.0.1:" + port)
                .operationTimeout(Duration.ofSeconds(2)).connect())
                .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                    assertThat(e.getMessage()).contains("redis://127.0.0.1:" + port).contains("cannot connect");
                    assertThat(e.failures()).singleElement()
                            .satisfies(f -> assertThat(f.kind()).isEqualTo(NodeFailure.Kind.REFUSED));
                });
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2_000 + 500);
        assertThat(ServerProbe.clientThreadsAfterShutdown()).isSubsetOf(threadsBefore);
    }

    @Test
    void acquiringFromAServerThatDiedFailsWithinTheTimeoutAndLeavesNothing() throws Exception {
        Set<String> threadsBefore = ServerProbe.clientThreads();
        try (RedisServer server = RedisServer.builder().start()) {
            RedisLockClient client = RedisLocks.builder().uri(server.uri()).operationTimeout(Duration.ofSeconds(1)).connect();
            server.kill();
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.lock("dead").acquire(Duration.ofSeconds(5)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(server.uri());
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000 + 1_000);
            assertThat(client.heldLeases()).isZero();
            assertThat(client.activeSubscriptions()).isZero();
            client.close();
            server.restart();
            assertThat(ServerProbe.keys(server)).isEmpty();
        }
        assertThat(ServerProbe.clientThreadsAfterShutdown()).isSubsetOf(threadsBefore);
    }

    @Test
    void aFrozenServerTurnsAnAcquireIntoATimeoutErrorWithinTheOperationTimeout() {
        try (RedisServer server = RedisServer.builder().start()) {
            try (RedisLockClient client = RedisLocks.builder().uri(server.uri())
                    .operationTimeout(Duration.ofMillis(500)).connect()) {
                server.pause();
                long start = System.nanoTime();
                assertThatThrownBy(() -> client.lock("frozen").acquire(Duration.ofSeconds(10)))
                        .isInstanceOfSatisfying(LockUnavailableException.class, e ->
                                assertThat(e.failures().get(0).kind()).isEqualTo(NodeFailure.Kind.TIMED_OUT))
                        .hasMessageContaining(server.uri());
                assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(500 + 500);
                server.resume();
                assertThat(client.lock("frozen").tryAcquire(Duration.ofSeconds(2))).isPresent();
            }
        }
    }

    @Test
    void connectingToAFrozenServerFailsWithinTheOperationTimeout() {
        try (RedisServer server = RedisServer.builder().start()) {
            server.pause();
            long start = System.nanoTime();
            assertThatThrownBy(() -> RedisLocks.builder().uri(server.uri()).operationTimeout(Duration.ofSeconds(1)).connect())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(server.uri());
            assertThat((System.nanoTime() - start) / 1_000_000).as("the handshake is bounded too").isLessThan(1_000 + 1_000);
            server.resume();
        }
    }

    @Test
    void aWrongPasswordIsAnAuthenticationErrorThatNeverShowsThePassword() throws Exception {
        Set<String> threadsBefore = ServerProbe.clientThreads();
        try (RedisServer server = RedisServer.builder().requirePass("s3cret-pw").start()) {
            String uri = "redis://:wrong-pw-123@127.0.0.1:" + server.port();
            long connectionsBefore = ServerProbe.connectedClients(server);
            assertThatThrownBy(() -> RedisLocks.connect(uri))
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                        assertThat(e.getMessage()).contains("redis://127.0.0.1:" + server.port())
                                .contains("credentials").doesNotContain("wrong-pw-123");
                        assertThat(e.failures().get(0).kind()).isEqualTo(NodeFailure.Kind.AUTHENTICATION);
                    });
            assertThat(ServerProbe.connectedClients(server)).as("no connection left open").isEqualTo(connectionsBefore);
            try (RedisLockClient client = RedisLocks.connect("redis://:s3cret-pw@127.0.0.1:" + server.port());
                 Lease lease = client.lock("auth").acquire(Duration.ZERO)) {
                assertThat(lease.isValid()).isTrue();
                assertThat(client.describe()).doesNotContain("s3cret");
            }
        }
        assertThat(ServerProbe.clientThreadsAfterShutdown()).isSubsetOf(threadsBefore);
    }

    @Test
    void anAclUserWithPasswordCanLockAndAWrongOneCannot() {
        try (RedisServer server = RedisServer.builder().aclUser("locker", "locker-pw").start()) {
            try (RedisLockClient client = RedisLocks.connect("redis://locker:locker-pw@127.0.0.1:" + server.port());
                 Lease lease = client.lock("acl").acquire(Duration.ZERO)) {
                assertThat(lease.token()).isPositive();
                assertThat(server.command("EXISTS", "acl")).isEqualTo(1L);
            }
            assertThatThrownBy(() -> RedisLocks.connect("redis://locker:nope@127.0.0.1:" + server.port()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("credentials")
                    .hasMessageNotContaining("nope");
        }
    }

    @Test
    void tlsWithAPrivateCaWorksAndAnUntrustedCertificateIsRefused(@TempDir Path dir) {
        // A hard requirement, not a skip: CI installs Debian's redis-server, built with TLS, and
        // the embedded binary supports it too; a build without TLS must fail here, loudly.
        assertThat(RedisBinary.locate().supportsTls())
                .as("redis-server at %s must be built with TLS; install Debian's redis-server or set "
                        + "LEASEHOLD_REDIS_SERVER", RedisBinary.locate().path()).isTrue();
        TlsMaterial tls = TlsMaterial.generate(dir);
        try (RedisServer server = RedisServer.builder().tls(tls).start()) {
            assertThat(server.uri()).startsWith("rediss://");
            try (RedisLockClient client = RedisLocks.builder().uri(server.uri()).trustedCertificate(tls.caCert()).connect();
                 Lease lease = client.lock("tls").acquire(Duration.ZERO)) {
                assertThat(client.describe()).startsWith("rediss://");
                assertThat(lease.isValid()).isTrue();
            }
            assertThatThrownBy(() -> RedisLocks.builder().uri(server.uri()).operationTimeout(Duration.ofSeconds(2)).connect())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(server.uri());
            assertThatThrownBy(() -> RedisLocks.builder().uri(server.uri().replace("rediss", "redis"))
                    .operationTimeout(Duration.ofSeconds(2)).connect())
                    .isInstanceOf(LockUnavailableException.class);
        }
    }

    @Test
    void anExistingLettuceClientIsUsedAndLeftRunning() {
        try (RedisServer server = RedisServer.builder().start()) {
            RedisClient mine = RedisClient.create();
            try {
                RedisLockClient locks = RedisLocks.builder().client(mine).uri(RedisURI.create(server.uri())).connect();
                try (Lease lease = locks.lock("borrowed").acquire(Duration.ZERO)) {
                    assertThat(lease.isValid()).isTrue();
                }
                long connections = ServerProbe.connectedClients(server);
                locks.close();
                assertThat(ServerProbe.connectedClients(server)).as("Leasehold closed its own connection").isLessThan(connections);
                try (StatefulRedisConnection<String, String> stillMine = mine.connect(RedisURI.create(server.uri()))) {
                    assertThat(stillMine.sync().ping()).isEqualTo("PONG");
                }
            } finally {
                mine.shutdown();
            }
        }
    }

    @Test
    void malformedUrisAreRejectedWithoutEchoingThem() {
        assertThatThrownBy(() -> RedisLocks.connect(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("URI");
        assertThatThrownBy(() -> RedisLocks.connect("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("URI");
        assertThatThrownBy(() -> RedisLocks.connect("http://user:topsecret@host")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://").hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> RedisLocks.builder().operationTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> RedisLocks.builder().connect()).isInstanceOf(IllegalStateException.class).hasMessageContaining("URI");
    }

    /** Lettuce took 'localhost:63x1' for a host name, and the connect then failed with NXDOMAIN. */
    @Test
    void aPortThatIsNotANumberIsRefusedAsSuch() {
        assertThatThrownBy(() -> RedisLocks.builder().uri("redis://user:topsecret@localhost:63x1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("host 'localhost' the port '63x1', which is not a number from 1 to 65535")
                .hasMessageNotContaining("topsecret");
        for (String unencoded : new String[] {"ab/cd", "ab?cd", "ab#cd", "abcd/"}) {
            assertThatThrownBy(() -> RedisLocks.builder().uri("redis://default:" + unencoded + "SECRET@localhost:6399"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("percent-encode")
                    .hasMessageNotContaining("SECRET").hasMessageNotContaining("ab");
        }
        assertThatThrownBy(() -> RedisLocks.builder().uri("redis-sentinel://localhost:26379,localhost:99999#m"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'99999'");
        assertThatThrownBy(() -> RedisLocks.builder().uri("redis-cluster://localhost:7000,localhost:x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port 'x'");
        RedisLocks.builder().uri("redis://[::1]:6379/2");
        RedisLocks.builder().uri("redis://localhost");
    }

    @Test
    void aSpaceInThePasswordIsRefusedWithTheEncodingToUse() {
        assertThatThrownBy(() -> RedisLocks.builder().uri("redis://user:top secret@localhost:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whitespace").hasMessageContaining("%20").hasMessageNotContaining("secret");
    }

    @Test
    void aDatabaseTheServerDoesNotHaveIsNamedAsSuch() {
        try (RedisServer server = RedisServer.builder().start()) {
            assertThatThrownBy(() -> RedisLocks.connect(server.uri() + "/99"))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("no such database").hasMessageContaining("'databases' setting")
                    .hasMessageNotContaining("check that the server is running");
        }
    }

    @Test
    void tlsAgainstAPlaintextPortSaysTheHandshakeGotNoAnswer() {
        try (RedisServer server = RedisServer.builder().start()) {
            String tls = server.uri().replace("redis://", "rediss://");
            assertThatThrownBy(() -> RedisLocks.builder().uri(tls).operationTimeout(Duration.ofSeconds(1)).connect())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("no answer to the TLS handshake").hasMessageContaining("use redis://");
        }
    }

    /** An HTTP server's reply came back as 'Invalid first byte: 72 (H)', with advice to check that it runs. */
    @Test
    void aPortOfAnotherServiceIsNamedAsSuch() throws Exception {
        try (java.net.ServerSocket http = new java.net.ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> {
                try (java.net.Socket socket = http.accept()) {
                    socket.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    socket.getOutputStream().flush();
                    socket.getInputStream().read(new byte[1024]);
                } catch (java.io.IOException ignored) {
                    // the client hung up: all this server has to say was said
                }
            }, "http-stand-in");
            answering.setDaemon(true);
            answering.start();
            assertThatThrownBy(() -> RedisLocks.builder().uri("redis://127.0.0.1:" + http.getLocalPort())
                    .operationTimeout(Duration.ofSeconds(2)).connect())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("does not speak the Redis protocol").hasMessageContaining("check the port");
        }
    }

    @Test
    void aServerAtItsConnectionLimitIsNamedAsSuchAndLeavesNothing() throws Exception {
        Set<String> threadsBefore = ServerProbe.clientThreads();
        try (RedisServer server = RedisServer.builder().arg("--maxclients", "1").start()) {
            try (RespClient only = RespClient.connect(server.host(), server.port())) {
                assertThat(only.call("PING")).as("the one allowed connection is served").isEqualTo("PONG");
                assertThatThrownBy(() -> RedisLocks.builder().uri(server.uri()).operationTimeout(Duration.ofSeconds(2))
                        .connect())
                        .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                            assertThat(e.getMessage()).contains(server.uri()).contains("connection limit")
                                    .contains("'maxclients'").doesNotContain("check that the server is running");
                            assertThat(e.failures()).singleElement()
                                    .satisfies(f -> assertThat(f.kind()).isEqualTo(NodeFailure.Kind.REFUSED));
                        });
            }
            try (RedisLockClient client = RedisLocks.connect(server.uri());
                 Lease lease = client.lock("room").acquire(Duration.ZERO)) {
                assertThat(lease.isValid()).as("once a connection is free, a client connects").isTrue();
            }
        }
        assertThat(ServerProbe.clientThreadsAfterShutdown()).isSubsetOf(threadsBefore);
    }

    /** The limit leaves room for the two clients and the test's own connection to read the server's stats. */
    @Test
    void aWaiterWhoseSubscriptionTheFullServerRefusesIsToldWhyAndKeepsNothing() {
        try (RedisServer server = RedisServer.builder().arg("--maxclients", "3").start();
             RespClient admin = RespClient.connect(server.host(), server.port());
             RedisLockClient holder = RedisLocks.connect(server.uri());
             RedisLockClient waiter = RedisLocks.connect(server.uri())) {
            Lease held = holder.lock("full").acquire(Duration.ZERO);
            assertThatThrownBy(() -> waiter.lock("full").acquire(Duration.ofSeconds(5)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("pub/sub connection").hasMessageContaining("connection limit");
            assertThat(waiter.heldLeases()).isZero();
            eventually(() -> waiter.activeSubscriptions() == 0, "the failed subscription is dropped");
            String stats = (String) admin.call("INFO", "stats");
            assertThat(stats).as("no second connection just to unsubscribe").contains("rejected_connections:1\r\n");
            held.close();
            assertThat(waiter.lock("full").tryAcquire(Duration.ZERO))
                    .as("an attempt that needs no subscription still works").isPresent();
        }
    }

    /**
     * A port that accepts and closes every handshake after 700 ms: four handshakes in a row would
     * take 2.8 s; within the 1 s operation timeout there is room for two.
     */
    @Test
    void aServerThatClosesEveryHandshakeIsGivenUpOnAfterAboutTheOperationTimeout() throws Exception {
        AtomicInteger accepted = new AtomicInteger();
        try (ServerSocket closing = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread closer = new Thread(() -> {
                while (!closing.isClosed()) {
                    try (Socket socket = closing.accept()) {
                        accepted.incrementAndGet();
                        Thread.sleep(700);
                    } catch (IOException | InterruptedException e) {
                        return;
                    }
                }
            }, "handshake-closer");
            closer.setDaemon(true);
            closer.start();
            long start = System.nanoTime();
            assertThatThrownBy(() -> RedisLocks.builder().uri("redis://127.0.0.1:" + closing.getLocalPort())
                    .operationTimeout(Duration.ofSeconds(1)).connect())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("closed the connection during the handshake")
                    .hasMessageContaining("'maxclients'");
            assertThat(accepted.get()).as("handshakes started within the timeout").isBetween(1, 2);
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(1_000 + 700 + 800);
        }
    }
}
