/**
 * Reading Leasehold's Micrometer meters in backend tests ({@link dev.leasehold.testkit.meters.MeterReadings})
 * and the meter checks every backend runs on its real server ({@link dev.leasehold.testkit.meters.MeterChecks}).
 */
package dev.leasehold.testkit.meters;
