package dev.leasehold.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisAuthTest {

    @Test
    void requirePassRejectsUnauthenticatedCommands() {
        try (RedisServer server = RedisServer.builder().requirePass("s3cret").start();
                RespClient client = RespClient.connect(server.host(), server.port())) {
            assertThatThrownBy(() -> client.call("SET", "k", "v"))
                    .isInstanceOf(RedisReplyException.class)
                    .hasMessageStartingWith("NOAUTH");

            assertThat(client.call("AUTH", "s3cret")).isEqualTo("OK");
            assertThat(client.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(server.command("GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void aclUsersMustAuthenticateAndTheDefaultUserIsOff() {
        try (RedisServer server = RedisServer.builder().aclUser("alice", "pw 1").aclUser("bob", "pw2").start();
                RespClient client = RespClient.connect(server.host(), server.port())) {
            assertThatThrownBy(() -> client.call("GET", "k"))
                    .isInstanceOf(RedisReplyException.class)
                    .hasMessageStartingWith("NOAUTH");
            assertThatThrownBy(() -> client.call("AUTH", "alice", "wrong"))
                    .isInstanceOf(RedisReplyException.class)
                    .hasMessageStartingWith("WRONGPASS");

            assertThat(client.call("AUTH", "bob", "pw2")).isEqualTo("OK");
            assertThat(client.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(server.command("ACL", "WHOAMI")).isEqualTo("alice");
            assertThat(server.command("GET", "k")).isEqualTo("v");
        }
    }
}
