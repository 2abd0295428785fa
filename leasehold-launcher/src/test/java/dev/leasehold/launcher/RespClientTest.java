package dev.leasehold.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RespClientTest {

    static RedisServer server;
    RespClient client;

    @BeforeAll
    static void startServer() {
        server = RedisServer.builder().start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void connect() {
        client = RespClient.connect(server.host(), server.port());
        client.call("FLUSHALL");
    }

    @AfterEach
    void disconnect() {
        client.close();
    }

    @Test
    void decodesEveryReplyType() {
        assertThat(client.call("SET", "k", "v")).isEqualTo("OK");
        assertThat(client.call("GET", "k")).isEqualTo("v");
        assertThat(client.call("GET", "missing")).isNull();
        assertThat(client.call("INCR", "n")).isEqualTo(1L);
        assertThat(client.call("RPUSH", "list", "a", "", "c")).isEqualTo(3L);
        assertThat(client.call("LRANGE", "list", "0", "-1")).isEqualTo(List.of("a", "", "c"));
        assertThat(client.call("BLPOP", "empty", "0.01")).isNull();
    }

    @Test
    void bulkLengthsCountUtf8Bytes() {
        String value = "ünïcødé ✓ 🔒\r\n";
        client.call("SET", "k", value);

        assertThat(client.call("GET", "k")).isEqualTo(value);
        assertThat(client.call("STRLEN", "k")).isEqualTo((long) value.getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void errorRepliesAreThrownAndTheConnectionStaysUsable() {
        client.call("SET", "k", "v");

        assertThatThrownBy(() -> client.call("INCR", "k"))
                .isInstanceOf(RedisReplyException.class)
                .hasMessageStartingWith("ERR");
        assertThat(client.call("PING")).isEqualTo("PONG");
    }

    @Test
    void errorsInsideAnArrayAreReturnedAsElements() {
        client.call("SET", "k", "v");
        client.call("MULTI");
        client.call("INCR", "k");
        client.call("GET", "k");

        List<?> replies = (List<?>) client.call("EXEC");

        assertThat(replies).hasSize(2);
        assertThat(replies.get(0)).isInstanceOf(RedisReplyException.class);
        assertThat(replies.get(1)).isEqualTo("v");
    }

    @Test
    void pipelinedCommandsAnswerInOrder() {
        client.send("SET", "k", "1");
        client.send("INCR", "k");
        client.send("GET", "k");

        assertThat(client.read()).isEqualTo("OK");
        assertThat(client.read()).isEqualTo(2L);
        assertThat(client.read()).isEqualTo("2");
    }

    @Test
    void subscriberReadsPublishedMessages() {
        try (RespClient subscriber = RespClient.connect(server.host(), server.port())) {
            subscriber.send("SUBSCRIBE", "order:123:released");
            assertThat(subscriber.read()).isEqualTo(List.of("subscribe", "order:123:released", 1L));

            assertThat(client.call("PUBLISH", "order:123:released", "token 7")).isEqualTo(1L);

            assertThat(subscriber.read()).isEqualTo(List.of("message", "order:123:released", "token 7"));
        }
    }

    @Test
    void aClosedConnectionIsAnIoError() {
        client.send("QUIT");
        assertThat(client.read()).isEqualTo("OK");

        assertThatThrownBy(client::read)
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot read");
    }

    @Test
    void aCommandNeedsArguments() {
        assertThatThrownBy(() -> client.send()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void connectingToAClosedPortFails() {
        assertThatThrownBy(() -> RespClient.connect("127.0.0.1", FreePorts.find()))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot connect");
    }
}
