package dev.leasehold.redis;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.RedisVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The minimum Redis version, checked at connect. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisVersionTest {

    @Test
    void versionsBelowFiveAreTooOldAndUnreadableOnesAreNotRefused() {
        assertThat(RedisVersion.tooOld("# Server\r\nredis_version:4.0.14\r\nredis_mode:standalone\r\n")).isEqualTo("4.0.14");
        assertThat(RedisVersion.tooOld("redis_version:3.2.12\n")).isEqualTo("3.2.12");
        assertThat(RedisVersion.tooOld("# Server\r\nredis_version:5.0.0\r\n")).isNull();
        assertThat(RedisVersion.tooOld("redis_version:7.0.15\r\n")).isNull();
        assertThat(RedisVersion.tooOld("redis_version:255.255.255\r\n")).as("unstable builds").isNull();
        assertThat(RedisVersion.tooOld("# Server\r\nredis_mode:standalone\r\n")).isNull();
        assertThat(RedisVersion.tooOld("redis_version:unknown\r\n")).isNull();
    }

    @Test
    void aCurrentServerIsAccepted() {
        try (RedisServer server = RedisServer.builder().start();
             RedisLockClient client = RedisLocks.connect(server.uri())) {
            assertThat(client.lock("version").tryAcquire(Duration.ZERO)).isPresent();
        }
    }

    @Test
    void aUserNotAllowedToRunInfoIsNotRefused() {
        try (RedisServer server = RedisServer.builder().start()) {
            server.command("ACL", "SETUSER", "noinfo", "on", ">noinfo-pw", "~*", "&*", "+@all", "-info");
            try (RedisLockClient client = RedisLocks.connect("redis://noinfo:noinfo-pw@127.0.0.1:" + server.port())) {
                assertThat(client.lock("version").tryAcquire(Duration.ZERO)).isPresent();
            }
        }
    }

    @Test
    void anOldServerIsRefusedAtConnectNamingItsVersionAndTheMinimum() throws Exception {
        try (OldServer old = new OldServer("4.0.14")) {
            assertThatThrownBy(() -> RedisLocks.builder().uri("redis://127.0.0.1:" + old.port())
                    .operationTimeout(Duration.ofSeconds(2)).connect())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + old.port())
                    .hasMessageContaining("Redis 4.0.14")
                    .hasMessageContaining("Redis 5.0 or later");
        }
    }

    /** Speaks just enough RESP2 for a connect: HELLO is unknown (as before Redis 6), INFO names the version. */
    private static final class OldServer implements AutoCloseable {

        private final ServerSocket socket;
        private final List<Socket> clients = new ArrayList<>();

        OldServer(String version) throws IOException {
            socket = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket client = socket.accept();
                        synchronized (clients) {
                            clients.add(client);
                        }
                        Thread server = new Thread(() -> serve(client, version), "old-redis-connection");
                        server.setDaemon(true);
                        server.start();
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "old-redis");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        private static void serve(Socket client, String version) {
            try (client) {
                BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
                OutputStream out = client.getOutputStream();
                String header;
                while ((header = in.readLine()) != null) {
                    int args = Integer.parseInt(header.substring(1));
                    List<String> command = new ArrayList<>();
                    for (int i = 0; i < args; i++) {
                        in.readLine();
                        command.add(in.readLine());
                    }
                    String reply = switch (command.get(0).toUpperCase(Locale.ROOT)) {
                        case "PING" -> "+PONG\r\n";
                        case "INFO" -> bulk("# Server\r\nredis_version:" + version + "\r\nredis_mode:standalone\r\n");
                        default -> "-ERR unknown command '" + command.get(0) + "'\r\n";
                    };
                    out.write(reply.getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            } catch (IOException | RuntimeException gone) {
                // the client closed the connection
            }
        }

        private static String bulk(String text) {
            return "$" + text.getBytes(StandardCharsets.UTF_8).length + "\r\n" + text + "\r\n";
        }

        @Override
        public void close() throws IOException {
            socket.close();
            synchronized (clients) {
                for (Socket client : clients) {
                    client.close();
                }
            }
        }
    }
}
