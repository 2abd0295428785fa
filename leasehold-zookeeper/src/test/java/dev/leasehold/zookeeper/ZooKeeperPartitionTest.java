package dev.leasehold.zookeeper;

import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.StaleTokenException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A holder cut off from the whole ensemble (every proxy black-holes its bytes; the servers keep
 * their quorum) against a client that still reaches the servers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperPartitionTest {

    @Test
    void aPartitionedHolderIsToldBeforeItsSessionCanExpireAndItsLateWriteIsRefused() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        try (ZooKeeperLockClient partitioned = TestClients.connect(ensemble);
             ZooKeeperLockClient other = ZooKeeperLocks.builder().connectString(ensemble.directConnectString())
                     .sessionTimeout(TestClients.SESSION_TIMEOUT).build()) {
            String name = "partition:" + System.nanoTime();
            // A ttl far beyond the session: the loss can only come from the session, through the
            // session watch or the local deadline its grant caps.
            Lease old = partitioned.lock(name, LockOptions.watchdog(Duration.ofSeconds(60))).acquire(Duration.ofSeconds(5));
            guard.admit("account", old.token(), () -> "old holder's first write");
            CompletableFuture<Long> lostAt = old.lost().toCompletableFuture().thenApply(lost -> System.nanoTime());

            long partitionedAt;
            Lease current;
            try (AutoCloseable partition = ensemble.partitionClients()) {
                partitionedAt = System.nanoTime();
                current = other.lock(name).acquire(Duration.ofSeconds(20));
                long acquiredAt = System.nanoTime();
                long lost = lostAt.get(1, TimeUnit.SECONDS);
                assertThat(millis(lost - partitionedAt)).as("lost() completed before the %s session could expire"
                        + " on the servers", TestClients.SESSION_TIMEOUT).isLessThan(TestClients.SESSION_TIMEOUT.toMillis());
                assertThat(lost).as("the other client got the lock only after the holder was told").isLessThan(acquiredAt);
                System.out.printf("partitioned holder told after %d ms, the other client acquired after %d ms%n",
                        millis(lost - partitionedAt), millis(acquiredAt - partitionedAt));
                // The servers last heard from the holder at most a third of the session before the
                // partition (its ping interval), and expire the session a full session after that.
                assertThat(millis(acquiredAt - partitionedAt)).as("the servers freed it when the session expired")
                        .isGreaterThanOrEqualTo(TestClients.SESSION_TIMEOUT.multipliedBy(2).dividedBy(3).toMillis()
                                - Ensemble.TICK_MILLIS);
            }
            assertThat(current.token()).isGreaterThan(old.token());
            assertThat(old.isValid()).isFalse();
            assertThat(old.lost().toCompletableFuture().get().getMessage()).containsAnyOf("ZooKeeper", "local deadline");
            guard.admit("account", current.token(), () -> "new holder's write");
            // The old holder, paused through all of this, wakes and writes with the token it has.
            assertThatThrownBy(() -> guard.admit("account", old.token(), () -> "late write"))
                    .isInstanceOf(StaleTokenException.class);
            assertThatThrownBy(old::ensureValid).isInstanceOf(LeaseLostException.class);
            current.release();
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
