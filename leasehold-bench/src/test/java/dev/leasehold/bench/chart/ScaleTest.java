package dev.leasehold.bench.chart;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The scales place known values where they belong and tick at round values inside their domain. */
class ScaleTest {

    @Test
    void aLinearScaleWidensToRoundStepsAndStartsAtZero() {
        LinearScale scale = LinearScale.nice(12, 97);
        assertThat(scale.low()).isZero();
        assertThat(scale.high()).isEqualTo(100);
        assertThat(labels(scale)).containsExactly("0", "20", "40", "60", "80", "100");
        assertThat(scale.fraction(50)).isCloseTo(0.5, within(1e-12));
    }

    @Test
    void aLinearScaleOfNegativeValuesHoldsZeroAtItsTop() {
        LinearScale scale = LinearScale.nice(-7, -3);
        assertThat(scale.low()).isEqualTo(-8);
        assertThat(scale.high()).isZero();
    }

    @Test
    void aLinearScaleOfZerosIsZeroToOne() {
        LinearScale scale = LinearScale.nice(0, 0);
        assertThat(scale.low()).isZero();
        assertThat(scale.high()).isEqualTo(1);
        assertThat(scale.fraction(0)).isZero();
    }

    @Test
    void tickStepsAreOneTwoTwoAndAHalfOrFiveTimesAPowerOfTen() {
        assertThat(LinearScale.step(0.6)).isEqualTo(1);
        assertThat(LinearScale.step(1.2)).isEqualTo(2);
        assertThat(LinearScale.step(2.1)).isEqualTo(2.5);
        assertThat(LinearScale.step(3)).isEqualTo(5);
        assertThat(LinearScale.step(7)).isEqualTo(10);
        assertThat(LinearScale.step(4_000)).isEqualTo(5_000);
        assertThat(LinearScale.step(0.03)).isCloseTo(0.05, within(1e-15));
    }

    @Test
    void aLinearScaleAtValuesTicksThemAndKeepsThemOffTheFrame() {
        LinearScale scale = LinearScale.atValues(new TreeSet<>(List.of(8.0, 2.0, 4.0)));
        assertThat(labels(scale)).containsExactly("2", "4", "8");
        assertThat(scale.fraction(2)).isStrictlyBetween(0.0, 0.1);
        assertThat(scale.fraction(8)).isStrictlyBetween(0.9, 1.0);
        LinearScale one = LinearScale.atValues(new TreeSet<>(List.of(5.0)));
        assertThat(one.fraction(5)).isEqualTo(0.5);
    }

    @Test
    void aLogScaleTicksOneTwoFiveWithinTwoDecades() {
        LogScale scale = LogScale.nice(1, 100);
        assertThat(labels(scale)).containsExactly("1", "2", "5", "10", "20", "50", "100");
        assertThat(scale.fraction(10)).isCloseTo(0.5, within(1e-12));
        assertThat(scale.fraction(1)).isCloseTo(0, within(1e-12));
    }

    @Test
    void aLogScaleOverManyDecadesTicksThePowersOfTenInsideASnugDomain() {
        LogScale scale = LogScale.nice(0.08, 7);
        assertThat(scale.low()).isEqualTo(0.05);
        assertThat(scale.high()).isEqualTo(10);
        assertThat(labels(scale)).containsExactly("0.1", "1", "10");
    }

    @Test
    void aLogScaleOfOneValueSpansTheStepsEitherSide() {
        LogScale scale = LogScale.nice(3, 3);
        assertThat(scale.low()).isEqualTo(2);
        assertThat(scale.high()).isEqualTo(5);
        LogScale exact = LogScale.nice(10, 10);
        assertThat(exact.low()).isEqualTo(5);
        assertThat(exact.high()).isEqualTo(20);
    }

    @Test
    void aLogScaleAtDoublingValuesSpacesThemEvenly() {
        LogScale scale = LogScale.atValues(new TreeSet<>(List.of(1.0, 4.0, 16.0)));
        assertThat(labels(scale)).containsExactly("1", "4", "16");
        double step = scale.fraction(4) - scale.fraction(1);
        assertThat(scale.fraction(16) - scale.fraction(4)).isCloseTo(step, within(1e-12));
        assertThat(scale.fraction(1)).isPositive();
        assertThat(scale.fraction(16)).isLessThan(1);
    }

    @Test
    void aLogScaleRefusesWhatItCannotPlace() {
        assertThatThrownBy(() -> LogScale.nice(0, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive values, got 0.0");
        assertThatThrownBy(() -> LogScale.nice(1, 10).fraction(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("linear axis");
    }

    @Test
    void theNinesScaleGivesEveryNineTheSameRoom() {
        NinesScale scale = new NinesScale(99.9);
        assertThat(scale.fraction(0)).isZero();
        assertThat(scale.fraction(90)).isCloseTo(1 / 3.0, within(1e-9));
        assertThat(scale.fraction(99)).isCloseTo(2 / 3.0, within(1e-9));
        assertThat(scale.fraction(99.9)).isCloseTo(1, within(1e-9));
        assertThat(labels(scale)).containsExactly("0%", "50%", "90%", "99%", "99.9%");
    }

    @Test
    void theNinesScaleReachesNinetyPercentAtLeastAndRefusesTheMaximum() {
        NinesScale scale = new NinesScale(50);
        assertThat(labels(scale)).containsExactly("0%", "50%", "90%");
        assertThat(scale.fraction(90)).isCloseTo(1, within(1e-9));
        assertThatThrownBy(() -> scale.fraction(100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside [0, 100)");
    }

    @Test
    void aLinearAxisLabelsEveryTickInOneUnit() {
        assertThat(labels(LinearScale.nice(0, 11_900))).containsExactly("0", "2.5k", "5k", "7.5k", "10k", "12.5k");
        assertThat(labels(LinearScale.nice(0, 1_300))).containsExactly("0", "500", "1,000", "1,500");
        assertThat(labels(LinearScale.nice(0, 2_400_000))).containsExactly("0", "0.5M", "1M", "1.5M", "2M", "2.5M");
    }

    @Test
    void tickLabelsAreShortAndFreeOfFloatNoise() {
        assertThat(TickLabels.number(0.1 + 0.2)).isEqualTo("0.3");
        assertThat(TickLabels.number(12.5)).isEqualTo("12.5");
        assertThat(TickLabels.number(1_500)).isEqualTo("1,500");
        assertThat(TickLabels.number(20_000)).isEqualTo("20k");
        assertThat(TickLabels.number(2_000_000)).isEqualTo("2M");
        assertThat(TickLabels.number(-0.0)).isEqualTo("0");
        assertThat(TickLabels.percent(99.9)).isEqualTo("99.9%");
    }

    private static List<String> labels(Scale scale) {
        return scale.ticks().stream().map(Scale.Tick::label).toList();
    }
}
