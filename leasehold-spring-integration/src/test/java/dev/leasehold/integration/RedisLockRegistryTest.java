package dev.leasehold.integration;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The registry contract on a real Redis server, and what is particular to Redis: key names, a key deleted under a holder. */
class RedisLockRegistryTest extends LockRegistryContract {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @Override
    protected LockClient connect() {
        return RedisLocks.connect(server.get().uri());
    }

    @Test
    void theLockNameIsTheKeyOrTheRegistryKeyAndTheKey() {
        String key = key("named");
        LeaseholdLock plain = registry().obtain(key);
        LeaseholdLock prefixed = new LeaseholdLockRegistry(client(), "orders", LockOptions.defaults()).obtain(key);
        assertThat(plain.lockName()).isEqualTo(key);
        assertThat(prefixed.lockName()).isEqualTo("orders:" + key);
        plain.lock();
        prefixed.lock();
        assertThat(server.get().command("EXISTS", key)).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", "orders:" + key)).as("a separate lock").isEqualTo(1L);
        prefixed.unlock();
        plain.unlock();
        assertThat(server.get().command("EXISTS", key)).isEqualTo(0L);
    }

    @Test
    void aKeyDeletedUnderAWatchdogLeaseIsFoundByTheRenewalAndUnlockThrows() throws Exception {
        LeaseholdLockRegistry registry = new LeaseholdLockRegistry(client(), LockOptions.watchdog(Duration.ofMillis(600)));
        String key = key("deleted");
        LeaseholdLock lock = registry.obtain(key);
        lock.lock();
        Lease lease = lock.currentLease().orElseThrow();
        server.get().command("DEL", key);
        assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS).getMessage()).contains(key);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void badInputIsRefusedWithTypedErrors() {
        LeaseholdLockRegistry registry = registry();
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Integer").hasMessageContaining("Strings");
        assertThatThrownBy(() -> registry.obtain(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.obtain(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LeaseholdLockRegistry(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new LeaseholdLockRegistry(client(), " ", LockOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("registryKey");
        assertThatThrownBy(() -> registry.expireUnusedOlderThan(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.setRenewalTaskScheduler(null)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("watchdog");
        LeaseholdLock lock = registry.obtain(key("bad"));
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> lock.tryLock(null, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.lock(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(lock.holdCount()).isZero();
    }
}
