package dev.leasehold.bench.chart;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Coordinates are written short and never as NaN or infinity; text is escaped. */
class SvgTest {

    @Test
    void coordinatesAreShortAndFinite() {
        assertThat(Svg.number(12.0)).isEqualTo("12");
        assertThat(Svg.number(12.5)).isEqualTo("12.5");
        assertThat(Svg.number(1.0 / 3)).isEqualTo("0.33");
        assertThat(Svg.number(-0.001)).isEqualTo("0");
        assertThatThrownBy(() -> Svg.number(Double.NaN)).isInstanceOf(IllegalStateException.class)
                .hasMessage("coordinate NaN is not a finite number");
        assertThatThrownBy(() -> Svg.number(Double.NEGATIVE_INFINITY)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theFiveSpecialCharactersAreEscaped() {
        assertThat(Svg.escape("<a & 'b' \"c\">")).isEqualTo("&lt;a &amp; &apos;b&apos; &quot;c&quot;&gt;");
    }
}
