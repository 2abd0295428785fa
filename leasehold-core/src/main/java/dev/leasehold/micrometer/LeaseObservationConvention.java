package dev.leasehold.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the {@code leasehold.lease} observation. Implement it (or extend
 * {@link DefaultLeaseObservationConvention}) to rename, and give it to
 * {@link ObservationLeaseEvents#of(io.micrometer.observation.ObservationRegistry, AcquireObservationConvention, LeaseObservationConvention)},
 * or register it on the {@code ObservationRegistry} as a global convention.
 */
public interface LeaseObservationConvention extends ObservationConvention<LeaseObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LeaseObservationContext;
    }
}
