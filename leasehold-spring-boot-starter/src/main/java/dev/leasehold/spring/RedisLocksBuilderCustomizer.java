package dev.leasehold.spring;

import dev.leasehold.redis.RedisLocks;

/**
 * A bean that adjusts the builder of the auto-configured Redis lock client after the properties
 * were applied and before it connects, e.g. to share the application's Lettuce client
 * ({@link RedisLocks.Builder#client}). Customizers run in their {@link org.springframework.core.Ordered}
 * order.
 */
@FunctionalInterface
public interface RedisLocksBuilderCustomizer {

    /** Adjusts {@code builder}; may throw to fail the startup. */
    void customize(RedisLocks.Builder builder);
}
