package dev.leasehold.spring;

import dev.leasehold.redis.RedisLockClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@link LeaseholdHealthIndicator}, contributed as {@code leasehold}, when the application has
 * Spring Boot's health support (Actuator) and one {@link RedisLockClient}, the auto-configured one
 * or its own, or the {@link LazyRedisLockClient} of {@code leasehold.redis.connect-on-startup=false}.
 * {@code management.health.leasehold.enabled=false} turns it off.
 */
@AutoConfiguration(after = LeaseholdAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("leasehold")
public class LeaseholdHealthAutoConfiguration {

    @Bean
    @ConditionalOnSingleCandidate(RedisLockClient.class)
    @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
    public LeaseholdHealthIndicator leaseholdHealthIndicator(RedisLockClient client) {
        return new LeaseholdHealthIndicator(client);
    }

    @Bean(name = "leaseholdHealthIndicator")
    @ConditionalOnSingleCandidate(LazyRedisLockClient.class)
    @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
    public LeaseholdHealthIndicator leaseholdLazyHealthIndicator(LazyRedisLockClient client) {
        return new LeaseholdHealthIndicator(client);
    }
}
