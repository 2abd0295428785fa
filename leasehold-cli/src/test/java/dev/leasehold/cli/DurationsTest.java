package dev.leasehold.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {

    @Test
    void parsesTheFormsPeopleType() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse("0")).isEqualTo(Duration.ZERO);
        assertThat(Durations.parse("0s")).isEqualTo(Duration.ZERO);
        assertThat(Durations.parse(" 10S ")).isEqualTo(Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "30", "30x", "-1s", "1.5s", "PT30S", "s", "5 minutes", "1m30s", "9999999999999999h"})
    void rejectsAnythingElseNamingTheTextAndTheForms(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'" + text + "' is not a duration; use a whole number and a unit: 500ms, 30s, 2m or 1h (or 0)");
    }

    @Test
    void formatsShortAndReadable() {
        assertThat(Durations.format(Duration.ofMillis(850))).isEqualTo("850ms");
        assertThat(Durations.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(Durations.format(Duration.ofMillis(12_345))).isEqualTo("12.3s");
        assertThat(Durations.format(Duration.ofSeconds(125))).isEqualTo("2m05s");
        assertThat(Durations.format(Duration.ofMinutes(2))).isEqualTo("2m");
        assertThat(Durations.format(Duration.ofHours(24))).isEqualTo("24h");
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("1h30m");
        assertThat(Durations.format(Duration.ofMillis(-5))).isEqualTo("0ms");
    }
}
