package dev.leasehold.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the {@code leasehold.acquire} observation. Implement it (or extend
 * {@link DefaultAcquireObservationConvention}) to rename, and give it to
 * {@link ObservationLeaseEvents#of(io.micrometer.observation.ObservationRegistry, AcquireObservationConvention, LeaseObservationConvention)},
 * or register it on the {@code ObservationRegistry} as a global convention.
 */
public interface AcquireObservationConvention extends ObservationConvention<AcquireObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof AcquireObservationContext;
    }
}
