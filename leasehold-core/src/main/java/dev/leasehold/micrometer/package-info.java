/**
 * Leasehold's Micrometer meters: {@link dev.leasehold.micrometer.MicrometerLeaseEvents}. Needs
 * {@code io.micrometer:micrometer-core} on the class path, which Leasehold declares as an optional
 * dependency; nothing else in Leasehold refers to Micrometer.
 */
package dev.leasehold.micrometer;
