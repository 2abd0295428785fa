package dev.leasehold.testkit.meters;

import dev.leasehold.micrometer.MicrometerLeaseEvents;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

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

    /** Leases recorded by {@code leasehold.lease.held}: released or lost. */
    public long leasesEnded() {
        Timer timer = registry.find(MicrometerLeaseEvents.LEASE_HELD).timer();
        return timer == null ? 0 : timer.count();
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
}
