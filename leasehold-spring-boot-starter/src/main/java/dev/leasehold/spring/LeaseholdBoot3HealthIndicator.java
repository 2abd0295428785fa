package dev.leasehold.spring;

import dev.leasehold.redis.RedisLockClient;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * {@link LeaseholdHealthIndicator} for Spring Boot 3, whose Actuator keeps health indicators in
 * {@code org.springframework.boot.actuate.health} (Boot 4 moved them to
 * {@code org.springframework.boot.health.contributor}): the same probe, the same details, UP when
 * the round trip succeeds and DOWN with the error otherwise.
 */
public class LeaseholdBoot3HealthIndicator extends AbstractHealthIndicator {

    private final HealthProbe probe;

    public LeaseholdBoot3HealthIndicator(RedisLockClient client) {
        this(new HealthProbe(client));
    }

    /** For a client that connects at its first use: DOWN until the server answers. */
    public LeaseholdBoot3HealthIndicator(LazyRedisLockClient client) {
        this(new HealthProbe(client));
    }

    private LeaseholdBoot3HealthIndicator(HealthProbe probe) {
        super(HealthProbe.FAILURE);
        this.probe = probe;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up().withDetails(probe.run(builder::withDetail));
    }
}
