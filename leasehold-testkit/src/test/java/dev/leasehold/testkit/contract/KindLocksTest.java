package dev.leasehold.testkit.contract;

import dev.leasehold.LockKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The kinds a {@link ContractKinds} annotation may name, and the ones it may not. */
class KindLocksTest {

    @Test
    void eachExclusiveTagNamesItsKindAndASemaphoreHasOnePermit() {
        assertThat(KindLocks.kind("lock")).isEqualTo(LockKind.MUTEX);
        assertThat(KindLocks.kind("fair_lock")).isEqualTo(LockKind.FAIR);
        assertThat(KindLocks.kind("write")).isEqualTo(LockKind.WRITE);
        assertThat(KindLocks.kind("semaphore")).isEqualTo(LockKind.permits(1));
        for (String tag : new String[] {"lock", "fair_lock", "write", "semaphore"}) {
            assertThat(KindLocks.kind(tag).tag()).isEqualTo(tag);
            assertThat(KindLocks.kind(tag).exclusive() || KindLocks.kind(tag) instanceof LockKind.Permits).isTrue();
        }
    }

    @Test
    void readAndUnknownTagsAreRefusedWithWhatToUseInstead() {
        assertThatThrownBy(() -> KindLocks.kind("read")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("readers share");
        assertThatThrownBy(() -> KindLocks.kind("mutex")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'mutex'").hasMessageContaining("lock, fair_lock, write or semaphore");
    }

    @Test
    void aSemaphoreOfMoreThanOnePermitIsNoLockTheContractCanTest() {
        assertThatThrownBy(() -> KindLocks.lock(null, LockKind.permits(2), "x", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exclusive kinds only");
        assertThatThrownBy(() -> KindLocks.lock(null, LockKind.READ, "x", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exclusive kinds only");
    }
}
