package dev.leasehold.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void startsAnswersPingAndStopsGracefully() {
        try (RedisServer server = RedisServer.builder().start()) {
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat(server.isAlive()).isTrue();
            assertThat(server.command("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));

            server.stop();

            assertThat(server.isAlive()).isFalse();
            assertThat(server.logTail(50)).contains("ready to exit");
        }
    }

    @Test
    void killedServerRestartsOnTheSamePortWithItsAppendOnlyData() {
        try (RedisServer server = RedisServer.builder().appendFsyncAlways().start()) {
            int port = server.port();
            long firstPid = server.pid();
            Optional<Instant> firstStart = startOf(firstPid);
            server.command("SET", "order:123", "kept");

            server.kill();
            assertThat(server.isAlive()).isFalse();
            assertThat(ProcessHandle.of(firstPid).filter(ProcessHandle::isAlive)).isEmpty();

            server.restart();

            assertThat(server.port()).isEqualTo(port);
            // A new process; on a busy machine it may even reuse the old pid, so compare start times.
            assertThat(startOf(server.pid())).isPresent().isNotEqualTo(firstStart);
            assertThat(server.command("GET", "order:123")).isEqualTo("kept");
        }
    }

    private static Optional<Instant> startOf(long pid) {
        return ProcessHandle.of(pid).flatMap(process -> process.info().startInstant());
    }

    @Test
    void restartWaitsForAPortThatIsBrieflyTaken() throws Exception {
        try (RedisServer server = RedisServer.builder().start()) {
            server.kill();
            ServerSocket squatter = new ServerSocket(server.port(), 1, InetAddress.getByName(server.host()));
            CompletableFuture<Void> release = CompletableFuture.runAsync(() -> close(squatter),
                    CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS));

            server.restart();

            assertThat(release).isDone();
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void restartIsRefusedWhileTheServerRuns() {
        try (RedisServer server = RedisServer.builder().start()) {
            assertThatThrownBy(server::restart)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("kill() or stop()");
        }
    }

    @Test
    void pausedServerAnswersNothingUntilResumed() {
        try (RedisServer server = RedisServer.builder().start()) {
            server.pause();
            assertThat(server.isPaused()).isTrue();
            assertThat(server.isAlive()).isTrue();

            try (RespClient client = RespClient.connect(server.host(), server.port())) {
                client.setReadTimeout(Duration.ofMillis(300));
                assertThatThrownBy(() -> client.call("PING"))
                        .isInstanceOf(UncheckedIOException.class)
                        .hasCauseInstanceOf(SocketTimeoutException.class);
            }

            server.resume();
            assertThat(server.isPaused()).isFalse();
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void stopResumesAPausedServerFirst() {
        try (RedisServer server = RedisServer.builder().start()) {
            server.pause();
            server.stop();
            assertThat(server.isAlive()).isFalse();
            assertThat(server.isPaused()).isFalse();
        }
    }

    @Test
    void closeKillsEvenAPausedServerDeletesItsDirectoryAndIsIdempotent() {
        RedisServer server = RedisServer.builder().start();
        long pid = server.pid();
        server.pause();

        server.close();
        server.close();

        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(Files.exists(server.dir())).isFalse();
        assertThatThrownBy(server::restart).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void explicitPortAndExtraArgumentsReachTheServer() {
        int port = FreePorts.find();
        try (RedisServer server = RedisServer.builder().port(port).arg("--maxmemory", "10mb").start()) {
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "10485760"));
        }
    }

    @Test
    void aPortAlreadyServedByAnotherRedisIsNotMistakenForOurs() {
        try (RedisServer first = RedisServer.builder().start()) {
            assertThatThrownBy(() -> RedisServer.builder().port(first.port()).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(Integer.toString(first.port()));
            assertThat(first.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void startFailureCarriesTheLogTail() {
        assertThatThrownBy(() -> RedisServer.builder().arg("--no-such-directive", "x").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no-such-directive");
    }

    private static void close(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void builderRejectsBadArguments() {
        RedisServerBuilder builder = RedisServer.builder();
        assertThatThrownBy(() -> builder.port(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port");
        assertThatThrownBy(() -> builder.requirePass("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.aclUser("a b", "pw")).isInstanceOf(IllegalArgumentException.class);
    }
}
