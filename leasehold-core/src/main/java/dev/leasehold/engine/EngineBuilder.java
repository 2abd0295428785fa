package dev.leasehold.engine;

import dev.leasehold.micrometer.MicrometerLeaseEvents;
import dev.leasehold.micrometer.ObservationLeaseEvents;
import dev.leasehold.spi.Args;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import java.time.Duration;

/**
 * The settings of the {@link LeaseEngine} that every backend's client builder shares, with their
 * defaults and bounds in one place: each backend's builder extends it and adds its own. Each setter
 * validates its argument at once.
 *
 * @param <B> the concrete builder, returned by every setter for chaining
 */
public abstract class EngineBuilder<B extends EngineBuilder<B>> {

    private Duration operationTimeout = LeaseEngine.Settings.DEFAULT_OPERATION_TIMEOUT;
    private Duration maxRecheck = LeaseEngine.Settings.DEFAULT_MAX_RECHECK;
    private LeaseEvents events = LeaseEvents.NONE;
    private LeaseEvents observations = LeaseEvents.NONE;

    protected EngineBuilder() {
    }

    /** This builder, as its concrete type. */
    protected abstract B self();

    /**
     * Bound on every single call to the store: one attempt, one renewal round, one release (default
     * 3 s). An acquire returns or throws within its wait plus this, and a dead store is reported
     * after at most this; each backend's {@code build} or {@code connect} says what bounds connecting.
     *
     * @throws IllegalArgumentException if null or outside [1 ms, 5 min]
     */
    public B operationTimeout(Duration timeout) {
        this.operationTimeout = Args.within("operationTimeout", timeout, Duration.ofMillis(1), Duration.ofMinutes(5));
        return self();
    }

    /**
     * Longest a waiter sleeps between attempts when no release notification arrives (default 1 s,
     * jittered down to half, and at most a third of the lock's ttl): what a lost notification
     * costs at most.
     *
     * @throws IllegalArgumentException if null or outside [1 ms, 5 min]
     */
    public B maxRecheck(Duration maxRecheck) {
        this.maxRecheck = Args.within("maxRecheck", maxRecheck, Duration.ofMillis(1), Duration.ofMinutes(5));
        return self();
    }

    /**
     * Reports Leasehold's meters ({@code leasehold.acquire.wait}, {@code leasehold.lease.held},
     * {@code leasehold.renewal.failures}, {@code leasehold.lease.lost},
     * {@code leasehold.lease.overrun}, {@code leasehold.leases.active}; see
     * {@link MicrometerLeaseEvents}) to {@code registry}. Without this call the client has no
     * meters and needs no Micrometer on the class path.
     *
     * @throws IllegalArgumentException if registry is null
     */
    public B meterRegistry(MeterRegistry registry) {
        this.events = MicrometerLeaseEvents.of(registry);
        return self();
    }

    /**
     * Reports the engine's events to {@code events}: for a monitoring system other than Micrometer.
     * Replaces a {@link #meterRegistry} given before, and the other way round.
     *
     * @throws IllegalArgumentException if events is null
     */
    public B leaseEvents(LeaseEvents events) {
        this.events = LeaseEvents.require(events);
        return self();
    }

    /**
     * Reports each acquisition's wait ({@code leasehold.acquire}) and each hold ({@code leasehold.lease})
     * as Micrometer observations in {@code registry}, children of the caller's current observation, so
     * that traces show them (see {@link ObservationLeaseEvents}). Goes along with
     * {@link #meterRegistry} or {@link #leaseEvents}, replacing only an {@code observationRegistry}
     * given before. Without this call the client needs no micrometer-observation on the class path.
     *
     * @param lockNames whether the observations carry the lock name (a high-cardinality key value)
     * @throws IllegalArgumentException if registry is null
     */
    public B observationRegistry(ObservationRegistry registry, boolean lockNames) {
        this.observations = ObservationLeaseEvents.of(registry, lockNames);
        return self();
    }

    protected Duration operationTimeout() {
        return operationTimeout;
    }

    protected Duration maxRecheck() {
        return maxRecheck;
    }

    /** The engine settings these choose. */
    protected LeaseEngine.Settings engineSettings() {
        return new LeaseEngine.Settings(operationTimeout, maxRecheck,
                observations == LeaseEvents.NONE ? events : LeaseEvents.both(events, observations));
    }
}
