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
 * or its own. {@code management.health.leasehold.enabled=false} turns it off.
 */
@AutoConfiguration(after = LeaseholdAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnSingleCandidate(RedisLockClient.class)
@ConditionalOnEnabledHealthIndicator("leasehold")
public class LeaseholdHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
    public LeaseholdHealthIndicator leaseholdHealthIndicator(RedisLockClient client) {
        return new LeaseholdHealthIndicator(client);
    }
}
