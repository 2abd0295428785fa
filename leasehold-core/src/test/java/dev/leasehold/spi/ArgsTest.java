package dev.leasehold.spi;

import dev.leasehold.LockOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;

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

    @Test
    void aNullIsRefusedNamingTheArgumentAndAnythingElseIsReturnedAsItIs() {
        Object client = new Object();
        assertThat(Args.notNull("client", client)).isSameAs(client);
        assertThatThrownBy(() -> Args.notNull("client", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("client must not be null");
        assertThatThrownBy(() -> Args.within("ttl", null, Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ttl must not be null");
    }

    @Test
    void nullOptionsAreRefusedPointingToTheDefaults() {
        LockOptions options = LockOptions.defaults();
        assertThat(Args.lockOptions(options)).isSameAs(options);
        assertThatThrownBy(() -> Args.lockOptions(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("options must not be null; use LockOptions.defaults()");
    }

    @Test
    void aNullOrEmptyPatternIsRefusedPointingToTheOneForEveryLock() {
        assertThat(Args.pattern("order:*")).isEqualTo("order:*");
        for (String pattern : new String[] {null, ""}) {
            assertThatThrownBy(() -> Args.pattern(pattern)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("pattern must not be null or empty; use \"*\" for every lock");
        }
    }
}
