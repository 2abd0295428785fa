package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.launcher.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HerdProbe} against a real server: deliveries follow the subscriber count of each channel
 * at each publish (subscriptions made before the probe started, during it, and ended during it),
 * publishes from scripts count, and the client commands and the watched script's calls are
 * counted without the probe's own commands.
 */
class HerdProbeTest {

    private static RedisServer server;
    private final List<RespClient> open = new ArrayList<>();

    @BeforeAll
    static void start() {
        server = RedisServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private RespClient subscriber(String... channels) {
        RespClient client = RespClient.connect(server.host(), server.port());
        open.add(client);
        List<String> command = new ArrayList<>(List.of("SUBSCRIBE"));
        command.addAll(List.of(channels));
        client.send(command.toArray(String[]::new));
        for (String ignored : channels) {
            client.read();
        }
        return client;
    }

    /**
     * Leaves a channel and waits for the server's confirmation. The messages published to the
     * channel while the client listened come first, so the first reply is not the confirmation;
     * without waiting, the next publish could run before the unsubscribe.
     */
    private static void unsubscribe(RespClient client, String channel) {
        client.send("UNSUBSCRIBE", channel);
        Object reply;
        do {
            reply = client.read();
        } while (!((List<?>) reply).get(0).equals("unsubscribe"));
    }

    @Test
    void countsEveryDeliveryAsTheSubscriptionsChange() {
        RespClient leaving = subscriber("a");
        subscriber("a", "b");
        String script = "return redis.call('publish', KEYS[1], 'from a script')";
        try (RespClient publisher = RespClient.connect(server.host(), server.port())) {
            publisher.call("EVAL", script, "1", "a");
            String watched;
            try (HerdProbe probe = HerdProbe.start(server, null)) {
                publisher.call("EVAL", script, "1", "a");
                watched = probe.stop().firstScript();
            }
            HerdProbe.Counted counted;
            try (HerdProbe probe = HerdProbe.start(server, watched)) {
                publisher.call("PUBLISH", "a", "1");               // 2 subscribers
                publisher.call("PUBLISH", "b", "2");               // 1
                publisher.call("EVAL", script, "1", "a");          // 2, from a script
                subscriber("a");
                publisher.call("PUBLISH", "a", "3");               // 3
                unsubscribe(leaving, "a");
                publisher.call("PUBLISH", "a", "4");               // 2
                publisher.call("PUBLISH", "nobody", "5");          // 0
                publisher.call("SET", "k", "v");
                counted = probe.stop();
            }
            assertThat(counted.deliveries()).isEqualTo(2 + 1 + 2 + 3 + 2);
            assertThat(counted.publishes()).isEqualTo(6);
            assertThat(counted.scriptCalls()).isEqualTo(1);
            assertThat(counted.clientCommands()).containsEntry("publish", 5L).containsEntry("eval", 1L)
                    .containsEntry("subscribe", 1L).containsEntry("unsubscribe", 1L).containsEntry("set", 1L)
                    .doesNotContainKey("echo");
            assertThat(counted.clientCommandsTotal()).isEqualTo(9);
        } finally {
            open.forEach(RespClient::close);
        }
    }

    @Test
    void parsesMonitorLinesWithEscapes() {
        MonitorLine line = MonitorLine.parse("1700000000.123456 [0 127.0.0.1:5000] \"EVAL\" \"return \\\"x\\\"\\n\" \"0\"");
        assertThat(line.source()).isEqualTo("127.0.0.1:5000");
        assertThat(line.command()).isEqualTo("eval");
        assertThat(line.args()).containsExactly("return \"x\"\n", "0");
        assertThat(line.fromScript()).isFalse();
        MonitorLine inner = MonitorLine.parse("1700000000.123500 [0 lua] \"publish\" \"{lock-1}:released\" \"w1\"");
        assertThat(inner.fromScript()).isTrue();
        assertThat(inner.firstArg()).isEqualTo("{lock-1}:released");
    }
}
