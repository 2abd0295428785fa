/**
 * Spring Boot starter: the auto-configured {@link dev.leasehold.LockClient}, {@link dev.leasehold.spring.Locked}
 * methods and the Actuator health indicator. Add the starter and one property
 * ({@code leasehold.redis.uri}, or Spring Boot's {@code spring.data.redis.host}).
 */
package dev.leasehold.spring;
