package dev.leasehold.spi;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArgsTest {

    @Test
    void anIntWithinItsLimitsIsReturnedBothLimitsIncluded() {
        assertThat(Args.within("threads", 1, 1, 256)).isEqualTo(1);
        assertThat(Args.within("threads", 256, 1, 256)).isEqualTo(256);
    }

    @Test
    void anIntOutsideItsLimitsIsRefusedNamingTheArgumentBothLimitsAndTheValue() {
        assertThatThrownBy(() -> Args.within("retryCount", -1, 0, 100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryCount must be between 0 and 100, got -1");
        assertThatThrownBy(() -> Args.within("retryCount", 101, 0, 100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryCount must be between 0 and 100, got 101");
    }
}
