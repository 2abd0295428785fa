package dev.leasehold.spring;

import dev.leasehold.redis.RedisLockClient;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the lock backend, for Spring Boot Actuator ({@code /actuator/health/leasehold}): UP when
 * a real round trip to the Redis server succeeds, DOWN with the error otherwise. The probe is the
 * read-only script of {@link RedisLockClient#inspect(String)} on the lock name
 * {@value #PROBE_NAME} (under the client's key prefix), so it also shows that the credentials may
 * run Leasehold's scripts. It writes nothing. Details: the server (without credentials), the probe's
 * round-trip time, and the leases this client holds. This is the Spring Boot 4 indicator;
 * {@link LeaseholdBoot3HealthIndicator} is the same for Spring Boot 3.
 */
public class LeaseholdHealthIndicator extends AbstractHealthIndicator {

    /** The lock name the probe reads. */
    public static final String PROBE_NAME = "leasehold:health";

    private final HealthProbe probe;

    public LeaseholdHealthIndicator(RedisLockClient client) {
        this(new HealthProbe(client));
    }

    /** For a client that connects at its first use: DOWN until the server answers. */
    public LeaseholdHealthIndicator(LazyRedisLockClient client) {
        this(new HealthProbe(client));
    }

    private LeaseholdHealthIndicator(HealthProbe probe) {
        super(HealthProbe.FAILURE);
        this.probe = probe;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up().withDetails(probe.run(builder::withDetail));
    }
}
