/**
 * Leasehold's Micrometer bindings: the meters of {@link dev.leasehold.micrometer.MicrometerLeaseEvents}
 * (needs {@code io.micrometer:micrometer-core}) and the observations of
 * {@link dev.leasehold.micrometer.ObservationLeaseEvents}, {@code leasehold.acquire} and
 * {@code leasehold.lease}, for traces (needs {@code io.micrometer:micrometer-observation}; names and
 * keys in {@link dev.leasehold.micrometer.LeaseholdObservation}, renamed through
 * {@link dev.leasehold.micrometer.AcquireObservationConvention} and
 * {@link dev.leasehold.micrometer.LeaseObservationConvention}). Leasehold declares both as optional
 * dependencies; nothing outside this package and the builders' {@code meterRegistry} and
 * {@code observationRegistry} refers to Micrometer.
 */
package dev.leasehold.micrometer;
