package dev.leasehold.redlock;

import dev.leasehold.Lease;
import dev.leasehold.MultiLease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a quorum of independent masters offers: the mutex and the multi-lock; every other kind is refused saying why. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockKindsTest {

    @Test
    void theMutexAndTheMultiLockWorkAndTheOtherKindsSayWhyNot() {
        try (RedisNodes nodes = RedisNodes.start(3);
             RedlockLockClient locks = RedlockLocks.connect(nodes.uris())) {
            try (MultiLease both = locks.multiLock("kinds:a", "kinds:b").acquire(Duration.ofSeconds(5))) {
                assertThat(both.isValid()).isTrue();
                assertThat(locks.lock("kinds:a").tryAcquire(Duration.ZERO)).isEmpty();
            }
            try (Lease lease = locks.lock("kinds:a").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).isTrue();
            }
            assertThatThrownBy(() -> locks.semaphore("kinds:s", 2)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("a quorum cannot bound the permits");
            assertThatThrownBy(() -> locks.readWriteLock("kinds:rw")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("reader count");
            assertThatThrownBy(() -> locks.fairLock("kinds:f")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("arrival order");
            assertThatThrownBy(() -> locks.inspect("kinds:a")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("redlock[");
        }
    }
}
