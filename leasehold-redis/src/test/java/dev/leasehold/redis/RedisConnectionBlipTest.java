package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An acquire that the server executed but whose reply was lost to a connection reset: the client
 * gives up on it, and must not leave the granted key blocking everyone for a whole ttl. Failed
 * before the cleanup was retried: the abandon was sent once, rejected while disconnected, and the
 * second client waited 30 s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisConnectionBlipTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @Test
    void aKeyGrantedBehindALostReplyIsReleasedAfterTheReconnect() throws Exception {
        String name = "blip:order";
        RedisClient raw = RedisClient.create(server.get().uri());
        try (FaultProxy proxy = FaultProxy.start(server.get().host(), server.get().port());
             StatefulRedisConnection<String, String> direct = raw.connect();
             RedisLockClient blipped = RedisLocks.builder().uri("redis://" + proxy.host() + ":" + proxy.port())
                     .operationTimeout(Duration.ofSeconds(2)).connect();
             RedisLockClient other = RedisLocks.connect(server.get().uri())) {
            // Load the script first: a held NOSCRIPT reply would stop the EVAL fallback from being sent.
            blipped.lock("blip:warm-up").acquire(Duration.ofSeconds(1)).release();
            proxy.holdReplies();
            CompletableFuture<Lease> acquire = blipped.lock(name, LockOptions.watchdog(Duration.ofSeconds(30)))
                    .acquireAsync(Duration.ofSeconds(10));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (direct.sync().exists(name) == 0 && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            assertThat(direct.sync().exists(name)).as("the server granted the acquire").isEqualTo(1);
            proxy.cutAll();
            proxy.pass();
            assertThatThrownBy(() -> acquire.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(LockUnavailableException.class);

            try (Lease lease = other.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).as("taken long before the stranded key's 30 s ttl").isTrue();
            }
        } finally {
            raw.shutdown();
        }
    }
}
