package dev.leasehold;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The in-memory guard admits equal or higher tokens and refuses lower ones without running the write. */
class InMemoryFenceGuardTest {

    @Test
    void aLowerTokenIsRefusedAndItsWriteNeverRuns() {
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        List<String> writes = new ArrayList<>();
        assertThat(guard.highestAdmitted("balance")).isEqualTo(Long.MIN_VALUE);
        guard.admit("balance", 33, () -> writes.add("B:33"));
        guard.admit("balance", 33, () -> writes.add("B:33 again"));
        assertThatThrownBy(() -> guard.admit("balance", 32, () -> writes.add("A:32")))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.token()).isEqualTo(32);
                    assertThat(e.highestAdmitted()).isEqualTo(33);
                    assertThat(e.resource()).isEqualTo("balance");
                });
        assertThat(writes).containsExactly("B:33", "B:33 again");
        assertThat(guard.admit("balance", 40, () -> "ok")).isEqualTo("ok");
        assertThat(guard.highestAdmitted("balance")).isEqualTo(40);
        assertThat(guard.highestAdmitted("other")).isEqualTo(Long.MIN_VALUE);
    }

    /** A negative token is no lease's (a sentinel such as -1 passed on): refused, as by every guard. */
    @Test
    void aNegativeTokenIsRefusedAndItsWriteNeverRuns() {
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        List<String> writes = new ArrayList<>();
        assertThatThrownBy(() -> guard.admit("balance", -1, () -> writes.add("-1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThat(writes).isEmpty();
        assertThat(guard.highestAdmitted("balance")).isEqualTo(Long.MIN_VALUE);
        guard.admit("balance", 0, () -> writes.add("0"));
        assertThat(writes).containsExactly("0");
    }

    @Test
    void aFailingWriteDoesNotRecordItsToken() {
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        assertThatThrownBy(() -> guard.admit("row", 10, () -> {
            throw new IllegalStateException("disk full");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(guard.highestAdmitted("row")).isEqualTo(Long.MIN_VALUE);
        guard.admit("row", 5, () -> null);
        assertThat(guard.highestAdmitted("row")).isEqualTo(5);
    }
}
