package dev.leasehold.redis;

import dev.leasehold.LeaseSource;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acquire of each kind other than the mutex (which {@link RedisConnectionBlipTest} covers) that
 * the server granted but whose reply was lost to a connection reset: the caller is told it failed,
 * or gets the lease; if told it failed, the grant is cleaned up, so a rival of a conflicting kind
 * takes the lock within seconds, never after the grant's 30 s ttl.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisLostGrantKindsTest {

    private static final LockOptions LONG_TTL = LockOptions.watchdog(Duration.ofSeconds(30));

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @ParameterizedTest
    @ValueSource(strings = {"fair", "write", "read", "permit"})
    void aGrantWhoseReplyIsLostLeavesTheLockToARival(String kind) throws Exception {
        String name = "lost-grant:" + kind;
        RedisClient raw = RedisClient.create(server.get().uri());
        try (FaultProxy proxy = FaultProxy.start(server.get().host(), server.get().port());
             RedisLockClient cut = RedisLocks.builder().uri("redis://" + proxy.host() + ":" + proxy.port())
                     .operationTimeout(Duration.ofSeconds(2)).connect();
             RedisLockClient other = RedisLocks.connect(server.get().uri());
             StatefulRedisConnection<String, String> direct = raw.connect()) {
            // Load the kind's scripts first: a held NOSCRIPT reply would stop the EVAL fallback from being sent.
            lock(cut, kind, name + ":warm-up").acquire(Duration.ofSeconds(2)).release();
            LeaseSource cutLock = lock(cut, kind, name); // a semaphore reads its permits when made
            proxy.holdReplies();
            CompletableFuture<Lease> acquire = cutLock.acquireAsync(Duration.ofSeconds(10));
            String fence = LockKeys.of(name).fence();
            eventually(() -> direct.sync().exists(fence) == 1, "the server granted the acquire (its fence advanced)");
            proxy.cutAll();
            proxy.pass();

            Lease granted;
            try {
                granted = acquire.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException failed) {
                granted = null;
            }
            long token = Long.parseLong(direct.sync().get(fence));
            Optional<Lease> rival = lock(other, rivalOf(kind), name)
                    .tryAcquire(granted == null ? Duration.ofSeconds(5) : Duration.ZERO);
            if (granted == null) {
                assertThat(rival).as("%s: the lock free long before the lost grant's 30 s ttl", kind).isPresent();
                assertThat(rival.get().token()).isGreaterThan(token);
                rival.get().release();
            } else {
                assertThat(rival).as("%s: held by the lease the caller got", kind).isEmpty();
                assertThat(granted.token()).isEqualTo(token);
                granted.release();
            }
        } finally {
            raw.shutdown();
        }
    }

    /** The kind that conflicts with {@code kind}: a reader's is the writer. */
    private static String rivalOf(String kind) {
        return kind.equals("read") ? "write" : kind;
    }

    private static LeaseSource lock(LockClient client, String kind, String name) {
        return switch (kind) {
            case "fair" -> client.fairLock(name, LONG_TTL);
            case "write" -> client.readWriteLock(name, LONG_TTL).writeLock();
            case "read" -> client.readWriteLock(name, LONG_TTL).readLock();
            case "permit" -> client.semaphore(name, 1, LONG_TTL);
            default -> throw new IllegalArgumentException(kind);
        };
    }
}
