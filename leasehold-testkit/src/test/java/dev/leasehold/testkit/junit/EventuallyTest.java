package dev.leasehold.testkit.junit;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventuallyTest {

    @Test
    void returnsOnceTheConditionHolds() {
        long start = System.nanoTime();
        Eventually.eventually(() -> System.nanoTime() - start > Duration.ofMillis(20).toNanos(), "20 ms passed");
        assertThat(System.nanoTime() - start).isGreaterThan(Duration.ofMillis(20).toNanos());
    }

    @Test
    void failsNamingWhatItWaitedForAndKeepsAnInterrupt() {
        assertThatThrownBy(() -> Eventually.eventually(() -> false, "never", Duration.ofMillis(30)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("never").hasMessageContaining("PT0.03S");
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> Eventually.eventually(() -> false, "interrupted")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("interrupted waiting until interrupted");
        assertThat(Thread.interrupted()).as("the flag is set again").isTrue();
    }
}
