package dev.leasehold.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisTlsTest {

    @TempDir
    static Path certificates;

    static TlsMaterial tls;
    static RedisServer server;

    @BeforeAll
    static void startTlsServer() {
        tls = TlsMaterial.generate(certificates);
        server = RedisServer.builder().tls(tls).requirePass("pw").start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void answersPingOverTlsTrustingTheGeneratedCa() {
        assertThat(server.uri()).isEqualTo("rediss://127.0.0.1:" + server.port());
        assertThat(server.command("PING")).isEqualTo("PONG");
        try (RespClient client = RespClient.connect("127.0.0.1", server.port(), tls.sslContext())) {
            assertThat(client.call("AUTH", "pw")).isEqualTo("OK");
            assertThat(client.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void theCertificateNamesLocalhostToo() {
        try (RespClient client = RespClient.connect("localhost", server.port(), tls.sslContext())) {
            assertThat(client.call("AUTH", "pw")).isEqualTo("OK");
        }
    }

    @Test
    void plainConnectionGetsNoPong() {
        try (RespClient client = RespClient.connect(server.host(), server.port())) {
            client.setReadTimeout(Duration.ofSeconds(1));
            assertThatThrownBy(() -> client.call("PING")).isInstanceOf(UncheckedIOException.class);
        }
    }

    @Test
    void aClientThatDoesNotTrustTheCaIsRejected(@TempDir Path otherDir) {
        TlsMaterial other = TlsMaterial.generate(otherDir);
        assertThatThrownBy(() -> RespClient.connect(server.host(), server.port(), other.sslContext()))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("over TLS");
    }
}
