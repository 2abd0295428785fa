package dev.leasehold.shedlock;

import dev.leasehold.LockClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The checker of {@link JobFuzz} is trusted because it catches a broken lock. */
class JobFuzzTest {

    /**
     * Two instances on two unrelated Redis servers: each excludes its own threads, never the other's.
     * Overlapping runs lose an increment, or, when their read-sleep-write happened not to interleave
     * (seen on a loaded machine), show a token that did not exceed the one before: either catches it.
     */
    @Test
    void itCatchesTwoInstancesThatDoNotExcludeEachOther() {
        try (LockClient one = Backends.redisClient(); LockClient other = Backends.otherRedisClient()) {
            JobFuzz fuzz = new JobFuzz(new LeaseholdLockProvider(one), new LeaseholdLockProvider(other), Duration.ZERO);
            assertThatThrownBy(fuzz::run).isInstanceOf(AssertionError.class)
                    .satisfies(caught -> assertThat(caught.getMessage()).containsAnyOf(JobFuzz.LOST_INCREMENT,
                            JobFuzz.TOKEN_NOT_GREATER));
        }
    }
}
