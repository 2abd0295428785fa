package dev.leasehold.micrometer;

import dev.leasehold.engine.AcquisitionTrace;
import dev.leasehold.engine.LeaseEvents;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Leasehold's traces as Micrometer observations, on which both Micrometer Tracing's spans and (with a
 * meter handler) timers build, fed by the engine's {@link LeaseEvents#acquireStarted}:
 * <ul>
 *   <li>{@value DefaultAcquireObservationConvention#NAME}: each acquisition's wait, from the call
 *       until it was granted, timed out, skipped, found the backend unavailable, failed or was
 *       cancelled ({@link AcquireObservationContext});</li>
 *   <li>{@value DefaultLeaseObservationConvention#NAME}: each hold, from the grant until the release
 *       or the loss; a lost lease carries its {@link dev.leasehold.LeaseLostException} as the
 *       observation's error ({@link LeaseObservationContext}).</li>
 * </ul>
 * Both have as parent the observation current on the thread that called {@code acquire} (or
 * {@code tryAcquire}, {@code acquireAsync}), so a request's trace shows where it waited for a lock and
 * how long it held it. Keys: {@link LeaseholdObservation}; low cardinality only, unless the lock name is
 * asked for. This only reports observations: the meters of {@link MicrometerLeaseEvents} stay as they
 * are, and {@link LeaseEvents#both} sends the engine's events to both.
 *
 * <p>Needs {@code io.micrometer:micrometer-observation} on the class path (an optional dependency of
 * Leasehold's); this class is loaded only when a builder is given an {@code ObservationRegistry}.
 */
public final class ObservationLeaseEvents implements LeaseEvents {

    private final ObservationRegistry registry;
    private final AcquireObservationConvention acquireConvention;
    private final LeaseObservationConvention leaseConvention;
    private final DefaultAcquireObservationConvention defaultAcquire;
    private final DefaultLeaseObservationConvention defaultLease;

    private ObservationLeaseEvents(ObservationRegistry registry, boolean lockNames,
                                   AcquireObservationConvention acquireConvention,
                                   LeaseObservationConvention leaseConvention) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null; use ObservationRegistry.NOOP for none");
        }
        this.registry = registry;
        this.acquireConvention = acquireConvention;
        this.leaseConvention = leaseConvention;
        this.defaultAcquire = new DefaultAcquireObservationConvention(lockNames);
        this.defaultLease = new DefaultLeaseObservationConvention(lockNames);
    }

    /**
     * Observations in {@code registry} with the default conventions, without lock names.
     *
     * @throws IllegalArgumentException if registry is null
     */
    public static LeaseEvents of(ObservationRegistry registry) {
        return of(registry, false);
    }

    /**
     * Observations in {@code registry} with the default conventions.
     *
     * @param lockNames whether each observation carries the lock name as the high-cardinality key value
     *                  {@code leasehold.lock.name} (a span attribute; never a meter tag). Off by default:
     *                  names may carry customer data, and a tracing backend indexes them.
     * @throws IllegalArgumentException if registry is null
     */
    public static LeaseEvents of(ObservationRegistry registry, boolean lockNames) {
        return new ObservationLeaseEvents(registry, lockNames, null, null);
    }

    /**
     * Observations in {@code registry} named and keyed by these conventions (a null one: the default,
     * without lock names). A global convention registered on the registry wins over both, as
     * Micrometer's rule is.
     *
     * @throws IllegalArgumentException if registry is null
     */
    public static LeaseEvents of(ObservationRegistry registry, AcquireObservationConvention acquire,
                                 LeaseObservationConvention lease) {
        return new ObservationLeaseEvents(registry, false, acquire, lease);
    }

    @Override
    public AcquisitionTrace acquireStarted(String lockName, String kind, String backend) {
        if (registry.isNoop()) {
            return AcquisitionTrace.NONE;
        }
        Observation parent = registry.getCurrentObservation();
        AcquireObservationContext context = new AcquireObservationContext(lockName, kind, backend);
        Observation acquire = LeaseholdObservation.ACQUIRE.observation(acquireConvention, defaultAcquire,
                () -> context, registry);
        return new ObservationTrace(this, parent, withParent(acquire, parent).start(), context);
    }

    /** The hold of a granted lease, started now under the acquire's parent. */
    Observation startLease(Observation parent, LeaseObservationContext context) {
        return withParent(LeaseholdObservation.LEASE.observation(leaseConvention, defaultLease, () -> context,
                registry), parent).start();
    }

    private static Observation withParent(Observation observation, Observation parent) {
        return parent == null ? observation : observation.parentObservation(parent);
    }
}
