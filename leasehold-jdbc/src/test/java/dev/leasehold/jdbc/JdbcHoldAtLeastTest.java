package dev.leasehold.jdbc;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hold-at-least on a real PostgreSQL server beyond the shared contract
 * ({@link JdbcHoldAtLeastContractTest}): a read lease kept against a writer.
 */
@Tag("faults")
class JdbcHoldAtLeastTest {

    private static LockClient connect() {
        return JdbcLocks.create(SharedDatabase.pool());
    }

    @Test
    void aReadLeaseIsKeptAgainstAWriter() throws Exception {
        try (LockClient holder = connect(); LockClient writer = connect()) {
            long start = System.nanoTime();
            long startWall = System.currentTimeMillis();
            Lease read = holder.readWriteLock("hold:read", LockOptions.defaults().holdAtLeast(Duration.ofMillis(1_500)))
                    .readLock().acquire(Duration.ofSeconds(5));
            Thread.sleep(100);
            assertThat(read.release()).isEqualTo(ReleaseStatus.RELEASED);
            DistributedLock write = writer.readWriteLock("hold:read").writeLock();
            assertThat(write.tryAcquire(Duration.ZERO)).isEmpty();
            Optional<Lease> next = write.tryAcquire(Duration.ofSeconds(6));
            assertThat(next).isPresent();
            // On whichever clock says more passed: the server's expiry may count wall-clock time.
            assertThat(Math.max((System.nanoTime() - start) / 1_000_000, System.currentTimeMillis() - startWall))
                    .isGreaterThanOrEqualTo(1_495);
            assertThat(next.get().token()).isGreaterThan(read.token());
            next.get().release();
        }
    }
}
