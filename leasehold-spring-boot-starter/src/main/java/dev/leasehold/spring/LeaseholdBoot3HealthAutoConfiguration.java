package dev.leasehold.spring;

import dev.leasehold.redis.RedisLockClient;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link LeaseholdHealthAutoConfiguration} for Spring Boot 3: the {@link LeaseholdBoot3HealthIndicator},
 * contributed as {@code leasehold}, when the application has Boot 3's Actuator and one
 * {@link RedisLockClient} or {@link LazyRedisLockClient}; {@code management.health.leasehold.enabled=false} turns it off. On
 * Boot 4 the outer condition fails (the package is gone), so the nested configuration, whose
 * annotations name Boot 3 classes, is never read.
 */
@AutoConfiguration(after = LeaseholdAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.AbstractHealthIndicator")
public class LeaseholdBoot3HealthAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("leasehold")
    static class Indicator {

        @Bean
        @ConditionalOnSingleCandidate(RedisLockClient.class)
        @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
        LeaseholdBoot3HealthIndicator leaseholdHealthIndicator(RedisLockClient client) {
            return new LeaseholdBoot3HealthIndicator(client);
        }

        @Bean(name = "leaseholdHealthIndicator")
        @ConditionalOnSingleCandidate(LazyRedisLockClient.class)
        @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
        LeaseholdBoot3HealthIndicator leaseholdLazyHealthIndicator(LazyRedisLockClient client) {
            return new LeaseholdBoot3HealthIndicator(client);
        }
    }
}
