package dev.leasehold;

import dev.leasehold.spi.LeaderRecordBytes;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad leadership options are refused with a message naming what is wrong; a record survives its bytes. */
class LeadershipOptionsTest {

    @Test
    void aFixedLeaseANullOrOverlongIdAndAnOverlongValueAreRefused() {
        LeadershipOptions options = LeadershipOptions.defaults();
        assertThatThrownBy(() -> options.withLockOptions(LockOptions.fixedLease(Duration.ofSeconds(5))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("watchdog");
        assertThatThrownBy(() -> options.withLockOptions(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> options.withLeaderId(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaderId");
        assertThatThrownBy(() -> options.withLeaderId("x".repeat(LeadershipOptions.MAX_LEADER_ID_LENGTH + 1)))
                .hasMessageContaining(Integer.toString(LeadershipOptions.MAX_LEADER_ID_LENGTH));
        assertThatThrownBy(() -> options.withValue("v".repeat(LeadershipOptions.MAX_VALUE_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value");
        assertThatThrownBy(() -> options.withValue(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theDefaultDisplayIdNamesTheHostAndProcessAndDiffersPerCandidate() {
        String first = LeadershipOptions.defaults().leaderId();
        assertThat(first).contains("/" + ProcessHandle.current().pid() + "#");
        assertThat(LeadershipOptions.defaults().leaderId()).isNotEqualTo(first);
        assertThat(LeadershipOptions.defaults().value()).isEmpty();
    }

    @Test
    void aRecordSurvivesItsBytesAndForeignBytesAreNoRecord() {
        LeaderInfo info = new LeaderInfo("node-ü", 42, Optional.of("10.0.0.1:8080"));
        assertThat(LeaderRecordBytes.decode(LeaderRecordBytes.encode(info), 42)).contains(info);
        LeaderInfo bare = new LeaderInfo("n", 7, Optional.empty());
        assertThat(LeaderRecordBytes.decode(LeaderRecordBytes.encode(bare), 7)).contains(bare);
        assertThat(LeaderRecordBytes.decode(new byte[0], 1)).isEmpty();
        assertThat(LeaderRecordBytes.decode("holder-id".getBytes(), 1)).isEmpty();
    }
}
