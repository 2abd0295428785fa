package dev.leasehold.spi;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GlobTest {

    @Test
    void starAndQuestionMarkMatchAsInRedisScan() {
        Glob glob = Glob.of("order:*");
        assertThat(glob.matches("order:1")).isTrue();
        assertThat(glob.matches("order:")).isTrue();
        assertThat(glob.matches("order:a/b\nc")).as("any character, a line break too").isTrue();
        assertThat(glob.matches("orders:1")).isFalse();
        assertThat(Glob.of("job?").matches("job7")).isTrue();
        assertThat(Glob.of("job?").matches("job77")).isFalse();
    }

    @Test
    void setsRangesAndNegation() {
        assertThat(Glob.of("h[ae]llo").matches("hallo")).isTrue();
        assertThat(Glob.of("h[ae]llo").matches("hillo")).isFalse();
        assertThat(Glob.of("v[0-9]").matches("v5")).isTrue();
        assertThat(Glob.of("v[^0-9]").matches("v5")).isFalse();
        assertThat(Glob.of("v[^0-9]").matches("vx")).isTrue();
        assertThat(Glob.of("a[.]b").matches("a.b")).isTrue();
        assertThat(Glob.of("a[.]b").matches("axb")).isFalse();
    }

    @Test
    void everythingElseIsLiteralAndABackslashEscapes() {
        assertThat(Glob.of("a.b+(c)").matches("a.b+(c)")).isTrue();
        assertThat(Glob.of("a.b").matches("axb")).isFalse();
        assertThat(Glob.of("a\\*").matches("a*")).isTrue();
        assertThat(Glob.of("a\\*").matches("ab")).isFalse();
        assertThat(Glob.of("\\[x]").matches("[x]")).isTrue();
    }

    @Test
    void aBadPatternSaysWhatIsWrong() {
        assertThatThrownBy(() -> Glob.of("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"*\"");
        assertThatThrownBy(() -> Glob.of(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Glob.of("a[bc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never closed");
    }
}
