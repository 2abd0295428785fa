package dev.leasehold.redis;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RenewalBatch} against a real server: a call sends its ttl once for all its leases, so
 * leases of different ttls flushed together go in separate calls, and each is still extended by its
 * own ttl and answered on its own.
 */
class RenewalBatchTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @Test
    void leasesOfDifferentTtlsFlushedTogetherAreEachExtendedByTheirOwnTtl() {
        RedisClient client = RedisClient.create(server.get().uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            server.get().command("SET", "batch:short", "holder-a", "PX", "5000");
            server.get().command("SET", "batch:long", "holder-b", "PX", "5000");
            server.get().command("SET", "batch:taken", "someone-else", "PX", "5000");
            RenewalBatch batch = new RenewalBatch(connection.async(), new RedisScripts().renewBatch, key -> 0,
                    Function.identity());
            CompletableFuture<Boolean> shortOne = batch.add("batch:short", "holder-a", Duration.ofSeconds(9));
            CompletableFuture<Boolean> longOne = batch.add("batch:long", "holder-b", Duration.ofSeconds(60));
            CompletableFuture<Boolean> taken = batch.add("batch:taken", "holder-c", Duration.ofSeconds(9));
            batch.flush();

            assertThat(shortOne.join()).isTrue();
            assertThat(longOne.join()).isTrue();
            assertThat(taken.join()).as("another holder's key is not ours").isFalse();
            assertThat((Long) server.get().command("PTTL", "batch:short")).isGreaterThan(8_000L).isLessThanOrEqualTo(9_000L);
            assertThat((Long) server.get().command("PTTL", "batch:long")).isGreaterThan(59_000L);
            assertThat((Long) server.get().command("PTTL", "batch:taken")).isLessThanOrEqualTo(5_000L);
            assertThat(batch.stats()).as("one call per ttl, one script group")
                    .isEqualTo(new RenewalBatch.Stats(1, 3, 1, 2));
        } finally {
            client.shutdown();
        }
    }
}
