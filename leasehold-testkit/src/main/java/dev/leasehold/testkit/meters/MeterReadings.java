package dev.leasehold.testkit.meters;

import dev.leasehold.micrometer.MicrometerLeaseEvents;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Reads Leasehold's meters from a registry, for the backends' meter tests: each reading is 0 for a
 * meter (or tag combination) that was never registered, so a test can assert that it stayed still.
 * Needs micrometer-core on the test class path (optional here, as in every backend).
 */
public final class MeterReadings {

    private final MeterRegistry registry;

    public MeterReadings(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Acquisitions recorded by {@code leasehold.acquire.wait} with this kind and outcome. */
    public long acquisitions(String kind, String outcome) {
        Timer timer = registry.find(MicrometerLeaseEvents.ACQUIRE_WAIT).tags("kind", kind, "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    /** Acquisitions recorded by {@code leasehold.acquire.wait} with this outcome, of any kind. */
    public long acquisitions(String outcome) {
        return registry.find(MicrometerLeaseEvents.ACQUIRE_WAIT).tag("outcome", outcome).timers().stream()
                .mapToLong(Timer::count).sum();
    }

    /** Time {@code leasehold.acquire.wait} recorded for acquisitions with this outcome, of any kind. */
    public double waited(String outcome, TimeUnit unit) {
        return registry.find(MicrometerLeaseEvents.ACQUIRE_WAIT).tag("outcome", outcome).timers().stream()
                .mapToDouble(timer -> timer.totalTime(unit)).sum();
    }

    /** Leases recorded by {@code leasehold.lease.held}: released or lost. */
    public long leasesEnded() {
        Timer timer = registry.find(MicrometerLeaseEvents.LEASE_HELD).timer();
        return timer == null ? 0 : timer.count();
    }

    /** Time {@code leasehold.lease.held} recorded over every ended lease. */
    public double held(TimeUnit unit) {
        Timer timer = registry.find(MicrometerLeaseEvents.LEASE_HELD).timer();
        return timer == null ? 0 : timer.totalTime(unit);
    }

    /** The {@code leasehold.leases.active} gauge. */
    public double active() {
        var gauge = registry.find(MicrometerLeaseEvents.LEASES_ACTIVE).gauge();
        return gauge == null ? 0 : gauge.value();
    }

    /** {@code leasehold.lease.lost} with this reason tag ({@code backend}, {@code expired}, ...). */
    public double lost(String reason) {
        Counter counter = registry.find(MicrometerLeaseEvents.LEASE_LOST).tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    /**
     * Every registered {@code leasehold.lease.lost} counter by its reason tag: a reason with no
     * loss yet shows as 0 once the client registered it, and not at all before.
     */
    public Map<String, Double> lostByReason() {
        return registry.find(MicrometerLeaseEvents.LEASE_LOST).counters().stream()
                .collect(Collectors.toMap(counter -> counter.getId().getTag("reason"), Counter::count));
    }

    /** {@code leasehold.renewal.failures}: renewals that got no answer and were retried. */
    public double renewalFailures() {
        return count(MicrometerLeaseEvents.RENEWAL_FAILURES);
    }

    /** {@code leasehold.lease.overrun}: leases released or checked by their holder after they were lost. */
    public double overruns() {
        return count(MicrometerLeaseEvents.LEASE_OVERRUN);
    }

    /** {@code leasehold.release.failures}: releases of held leases that could not reach the backend. */
    public double releaseFailures() {
        return count(MicrometerLeaseEvents.RELEASE_FAILURES);
    }

    private double count(String name) {
        Counter counter = registry.find(name).counter();
        return counter == null ? 0 : counter.count();
    }
}
