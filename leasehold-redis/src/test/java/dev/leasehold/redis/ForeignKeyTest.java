package dev.leasehold.redis;

import dev.leasehold.LockInfo;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Keys of another type under a lock's names (an operator's DEL + HSET, a Redisson RLock, which is a
 * hash): each concerns only its own lock, and says so.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ForeignKeyTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private static RedisLockClient client;

    @BeforeAll
    static void start() {
        client = RedisLocks.connect(server.get().uri());
    }

    @AfterAll
    static void stop() {
        client.close();
    }

    @Test
    void aKeyReplacedByAHashLosesOnlyItsOwnLeaseAndTheRestKeepRenewing() throws Exception {
        Duration ttl = Duration.ofMillis(600);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            leases.add(client.lock("foreign:batch:" + i, LockOptions.watchdog(ttl)).acquire(Duration.ZERO));
        }
        server.get().command("DEL", "foreign:batch:7");
        server.get().command("HSET", "foreign:batch:7", "redisson-holder", "1");

        Thread.sleep(ttl.multipliedBy(4).toMillis()); // twelve renewal periods, four ttls
        for (int i = 0; i < 20; i++) {
            assertThat(leases.get(i).isValid()).as("lease %d", i).isEqualTo(i != 7);
        }
        assertThat(leases.get(7).release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(server.get().command("TYPE", "foreign:batch:7")).as("the foreign key is left alone").isEqualTo("hash");
        for (int i = 0; i < 20; i++) {
            if (i != 7) {
                assertThat(leases.get(i).release()).isEqualTo(ReleaseStatus.RELEASED);
            }
        }
        server.get().command("DEL", "foreign:batch:7");
    }

    @Test
    void anAcquireOnAKeyOfAnotherTypeFailsAtOnceNamingTheType() {
        server.get().command("HSET", "foreign:acquire", "redisson-holder", "1");
        long start = System.nanoTime();
        assertThatThrownBy(() -> client.lock("foreign:acquire").acquire(Duration.ofSeconds(10)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("'foreign:acquire'")
                .hasMessageContaining("hash")
                .hasMessageContaining("another lock name");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no waiting for a key that never expires")
                .isLessThan(Duration.ofSeconds(2));
        assertThat(server.get().command("TYPE", "foreign:acquire")).isEqualTo("hash");
        server.get().command("DEL", "foreign:acquire");
    }

    @Test
    void inspectReportsAKeyOfAnotherType() {
        server.get().command("HSET", "foreign:inspect", "redisson-holder", "1");
        LockInfo info = client.inspect("foreign:inspect");
        assertThat(info.isHeld()).isFalse();
        assertThat(info.foreign()).hasValueSatisfying(text -> assertThat(text).contains("foreign:inspect").contains("hash"));
        server.get().command("DEL", "foreign:inspect");
        assertThat(client.inspect("foreign:inspect").foreign()).isEmpty();
    }

    /** Failed before: a fence that is not a counter made inspect() throw NumberFormatException. */
    @Test
    void inspectReportsAFenceThatIsNotACounter() {
        LockKeys keys = LockKeys.of("foreign:fence");
        server.get().command("SET", keys.fence(), "not-a-number");
        LockInfo info = client.inspect("foreign:fence");
        assertThat(info.lastToken()).isEmpty();
        assertThat(info.foreign()).hasValueSatisfying(text -> assertThat(text).contains(keys.fence()).contains("counter"));
        server.get().command("SET", keys.fence(), "99999999999999999999");
        assertThat(client.inspect("foreign:fence").foreign()).isPresent();
        server.get().command("DEL", keys.fence());
    }

    /** An application that keeps a hash at 'order:777' and locks the same name: a key prefix keeps them apart. */
    @Test
    void aKeyPrefixKeepsLocksClearOfTheApplicationsOwnKeys() {
        server.get().command("HSET", "order:777", "status", "paid");
        assertThatThrownBy(() -> client.lock("order:777").acquire(Duration.ZERO))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("hash");
        try (RedisLockClient prefixed = RedisLocks.builder().uri(server.get().uri()).keyPrefix("lock:").connect();
             Lease lease = prefixed.lock("order:777").acquire(Duration.ZERO)) {
            assertThat(lease.lockName()).isEqualTo("lock:order:777");
            assertThat(server.get().command("TYPE", "lock:order:777")).isEqualTo("string");
            assertThat(server.get().command("EXISTS", "{lock:order:777}:fence")).isEqualTo(1L);
            assertThat(server.get().command("HGET", "order:777", "status")).isEqualTo("paid");
            assertThat(prefixed.inspect("order:777").isHeld()).isTrue();
            assertThat(prefixed.list("order:*")).extracting(LockInfo::name).containsExactly("lock:order:777");
            assertThat(prefixed.breakLock("order:777", "test")).as("the prefixed lock, not the app's hash").isPresent();
            assertThat(server.get().command("EXISTS", "lock:order:777")).isEqualTo(0L);
        }
        assertThatThrownBy(() -> RedisLocks.builder().keyPrefix("{app}:")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("braces");
        server.get().command("DEL", "order:777");
    }
}
