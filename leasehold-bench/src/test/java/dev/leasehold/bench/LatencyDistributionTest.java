package dev.leasehold.bench;

import dev.leasehold.bench.chart.Distribution;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** A histogram of nanoseconds becomes milliseconds at percentiles up to what its samples support. */
class LatencyDistributionTest {

    @Test
    void valuesAreMillisecondsAtRisingPercentilesUpToWhatTheSamplesSupport() {
        Histogram nanos = new Histogram(3);
        for (int ms = 1; ms <= 1_000; ms++) {
            nanos.recordValue(ms * 1_000_000L);
        }
        Distribution distribution = LatencyDistribution.of("Leasehold", nanos);

        assertThat(distribution.label()).isEqualTo("Leasehold");
        Distribution.Quantile first = distribution.quantiles().get(0);
        Distribution.Quantile last = distribution.quantiles().get(distribution.quantiles().size() - 1);
        assertThat(first.percentile()).isZero();
        assertThat(first.value()).isCloseTo(1, within(0.01));
        assertThat(last.percentile()).as("1,000 samples support 99.9 %").isCloseTo(99.9, within(1e-9));
        assertThat(last.value()).isCloseTo(999, within(1.0));
        Distribution.Quantile median = distribution.quantiles().stream()
                .min((a, b) -> Double.compare(Math.abs(a.percentile() - 50), Math.abs(b.percentile() - 50))).orElseThrow();
        assertThat(median.value()).isCloseTo(median.percentile() * 10, within(10.0));
    }

    @Test
    void manySamplesStopAtFourNinesAndOneSampleIsOnePoint() {
        Histogram many = new Histogram(3);
        for (int i = 0; i < 200_000; i++) {
            many.recordValue(1_000 + i);
        }
        Distribution distribution = LatencyDistribution.of("many", many);
        assertThat(distribution.quantiles().get(distribution.quantiles().size() - 1).percentile())
                .isCloseTo(99.99, within(1e-9));

        Histogram one = new Histogram(3);
        one.recordValue(2_000_000);
        assertThat(LatencyDistribution.of("one", one).quantiles()).hasSize(1)
                .first().satisfies(quantile -> assertThat(quantile.value()).isCloseTo(2, within(0.01)));
    }

    @Test
    void anEmptyHistogramIsRefused() {
        assertThatThrownBy(() -> LatencyDistribution.of("Leasehold", new Histogram(3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no latency samples for Leasehold");
    }
}
