package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis guard's lease overloads on a real server: after {@code leasehold break} (here
 * {@link RedisLockClient#breakLock}) the old holder's renewal finds the key gone, and from then on
 * every guarded write of that lease is refused before its script is sent, though its token is still
 * the highest the fence admitted.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisFenceGuardLeaseTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private static RedisClient redis;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisLockClient locks;
    private static RedisFenceGuard guard;

    @BeforeAll
    static void start() {
        redis = RedisClient.create(server.get().uri());
        connection = redis.connect();
        guard = RedisFenceGuard.using(connection);
        locks = RedisLocks.connect(server.get().uri());
    }

    @AfterAll
    static void stop() {
        locks.close();
        connection.close();
        redis.shutdown();
    }

    /** Failed before (the guard took only the token): the write after the known loss was admitted and applied. */
    @Test
    void everyWriteOfALeaseKnownLostAfterABreakIsRefusedAndChangesNothing() throws Exception {
        Lease old = locks.lock("guarded:lock", LockOptions.watchdog(Duration.ofMillis(600))).acquire(Duration.ofSeconds(5));
        guard.set("guarded:value", "before", old);
        assertThat(guard.hset("guarded:hash", "f", "before", old)).isTrue();
        assertThat(guard.incrBy("guarded:count", 1, old)).isEqualTo(1);
        assertThat(locks.breakLock("guarded:lock", "test of the guard")).isPresent();
        old.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertThatThrownBy(() -> guard.set("guarded:value", "late", old)).isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("guarded:lock");
        assertThatThrownBy(() -> guard.hset("guarded:hash", "f", "late", old)).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> guard.incrBy("guarded:count", 1, old)).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> guard.del("guarded:value", old)).isInstanceOf(LeaseLostException.class);
        assertThat(server.get().command("GET", "guarded:value")).isEqualTo("before");
        assertThat(server.get().command("HGET", "guarded:hash", "f")).isEqualTo("before");
        assertThat(server.get().command("GET", "guarded:count")).isEqualTo("1");
        assertThat(guard.highestAdmitted("guarded:value")).as("the old token is still the highest").isEqualTo(old.token());

        try (Lease next = locks.lock("guarded:lock").acquire(Duration.ofSeconds(5))) {
            assertThat(guard.del("guarded:value", next)).isTrue();
        }
    }

    @Test
    void aReleasedLeaseIsRefusedAndANullOneIsBadInput() {
        Lease lease = locks.lock("guarded:released").acquire(Duration.ofSeconds(5));
        lease.release();
        assertThatThrownBy(() -> guard.set("guarded:released:value", "late", lease))
                .isInstanceOf(LeaseLostException.class).hasMessageContaining("released");
        assertThatThrownBy(() -> guard.set("guarded:released:value", "null", (Lease) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThat((Long) server.get().command("EXISTS", "guarded:released:value")).isZero();
    }
}
