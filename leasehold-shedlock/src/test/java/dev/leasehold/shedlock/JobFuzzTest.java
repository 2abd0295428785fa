package dev.leasehold.shedlock;

import dev.leasehold.LockClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The checker of {@link JobFuzz} is trusted because it catches a broken lock. */
class JobFuzzTest {

    /** Two instances on two unrelated Redis servers: each excludes its own threads, never the other's. */
    @Test
    void itCatchesTwoInstancesThatDoNotExcludeEachOther() {
        try (LockClient one = Backends.redisClient(); LockClient other = Backends.otherRedisClient()) {
            JobFuzz fuzz = new JobFuzz(new LeaseholdLockProvider(one), new LeaseholdLockProvider(other), Duration.ZERO);
            assertThatThrownBy(fuzz::run).isInstanceOf(AssertionError.class).hasMessageContaining(JobFuzz.LOST_INCREMENT);
        }
    }
}
