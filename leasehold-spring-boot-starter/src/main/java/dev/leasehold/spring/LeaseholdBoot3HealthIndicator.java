package dev.leasehold.spring;

import dev.leasehold.LockClient;
import dev.leasehold.redis.RedisLockClient;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

import java.util.function.Supplier;

/**
 * {@link LeaseholdHealthIndicator} for Spring Boot 3, whose Actuator keeps health indicators in
 * {@code org.springframework.boot.actuate.health} (Boot 4 moved them to
 * {@code org.springframework.boot.health.contributor}): the same probe, the same details, UP when
 * the round trip succeeds and DOWN with the error otherwise.
 */
public class LeaseholdBoot3HealthIndicator extends AbstractHealthIndicator {

    private final LockClient client;
    private final Supplier<RedisLockClient> connected;

    public LeaseholdBoot3HealthIndicator(RedisLockClient client) {
        this(client, () -> client);
    }

    /** For a client that connects at its first use: DOWN until the server answers. */
    public LeaseholdBoot3HealthIndicator(LazyRedisLockClient client) {
        this(client, client::connected);
    }

    private LeaseholdBoot3HealthIndicator(LockClient client, Supplier<RedisLockClient> connected) {
        super("Leasehold's Redis health check failed");
        this.client = client;
        this.connected = connected;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up().withDetails(HealthProbe.run(client, connected, builder::withDetail));
    }
}
