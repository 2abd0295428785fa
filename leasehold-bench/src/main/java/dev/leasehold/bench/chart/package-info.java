/**
 * A small SVG chart writer for the benchmark reports, with no dependency beyond the JDK.
 *
 * <p>{@link dev.leasehold.bench.chart.LineChart} draws series of points over x (throughput against
 * threads, wake-ups against waiters), {@link dev.leasehold.bench.chart.DistributionChart} a latency
 * percentile plot per contender. Both return a standalone SVG document with an explicit white
 * background, so it reads the same in GitHub's light and dark themes. Input is checked before
 * anything is drawn: a chart never contains a NaN or infinite coordinate.
 */
package dev.leasehold.bench.chart;
