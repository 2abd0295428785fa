package dev.leasehold.spring;

import dev.leasehold.LockClient;
import dev.leasehold.redis.RedisLockClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Leasehold for a Spring Boot application: a {@link LockClient} bean on the Redis server, Sentinel
 * group or Cluster named by {@code leasehold.redis.uri} or {@code spring.data.redis.*} (unless the application defines its
 * own {@code LockClient}), closed when the context closes, and {@link Locked} methods.
 *
 * <p>The client connects when the context starts: a missing, malformed or unreachable server fails
 * the startup with a {@link LeaseholdConfigurationException} that names the property. With
 * {@code leasehold.redis.connect-on-startup=false} it connects at its first use instead
 * ({@link LazyRedisLockClient}); a missing or malformed setting still fails the startup.
 */
@AutoConfiguration
@EnableConfigurationProperties(LeaseholdProperties.class)
public class LeaseholdAutoConfiguration {

    /**
     * The lock client. Its type is {@link RedisLockClient} for every deployment, so it can also be injected as one (for
     * {@code inspect}, {@code list}, {@code breakLock}).
     *
     * @throws LeaseholdConfigurationException naming the property when no server is configured, a
     *         setting is malformed or out of range, or the server cannot be reached
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockClient.class)
    @ConditionalOnProperty(name = "leasehold.redis.connect-on-startup", havingValue = "true", matchIfMissing = true)
    public RedisLockClient leaseholdLockClient(LeaseholdProperties properties, Environment environment,
                                               ObjectProvider<RedisLocksBuilderCustomizer> customizers) {
        return mapping(properties, environment, customizers).connect();
    }

    /**
     * The lock client of {@code leasehold.redis.connect-on-startup=false}: the settings are checked
     * now, the connection is made at the first use.
     *
     * @throws LeaseholdConfigurationException naming the property when no server is configured or a
     *         setting is malformed or out of range
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockClient.class)
    @ConditionalOnProperty(name = "leasehold.redis.connect-on-startup", havingValue = "false")
    public LazyRedisLockClient leaseholdLazyLockClient(LeaseholdProperties properties, Environment environment,
                                                       ObjectProvider<RedisLocksBuilderCustomizer> customizers) {
        RedisPropertiesMapper.Mapping mapping = mapping(properties, environment, customizers);
        return new LazyRedisLockClient(mapping.builder()::connect, mapping.serverProperty());
    }

    private static RedisPropertiesMapper.Mapping mapping(LeaseholdProperties properties, Environment environment,
                                                         ObjectProvider<RedisLocksBuilderCustomizer> customizers) {
        RedisPropertiesMapper.Mapping mapping = RedisPropertiesMapper.map(properties.getRedis(),
                SpringDataRedisProperties.bind(environment));
        customizers.orderedStream().forEach(customizer -> customizer.customize(mapping.builder()));
        return mapping;
    }

    /**
     * Proxies the beans with {@link Locked} methods. Static, as a post-processor must be, and bound
     * to {@code leasehold.locked.*} directly, since it exists before the properties beans do.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static LockedBeanPostProcessor leaseholdLockedBeanPostProcessor(Environment environment) {
        return new LockedBeanPostProcessor(Binder.get(environment)
                .bindOrCreate("leasehold.locked", LeaseholdProperties.Locked.class));
    }

    /**
     * Fails the startup on a {@code leasehold.*} property that does not exist (a typo), naming the
     * closest one that does; static, as a bean factory post-processor must be.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static BeanFactoryPostProcessor leaseholdUnknownProperties(Environment environment) {
        return new UnknownProperties(environment);
    }

    /**
     * Reports the client's meters ({@code leasehold.*}, README "Meters") to the application's
     * {@link MeterRegistry} when there is exactly one; nested so that an application without
     * Micrometer never loads this class.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Meters {

        @Bean
        RedisLocksBuilderCustomizer leaseholdMeterRegistry(ObjectProvider<MeterRegistry> registry) {
            return builder -> registry.ifUnique(builder::meterRegistry);
        }
    }

    /**
     * Reports each acquisition's wait and each hold as observations ({@code leasehold.acquire},
     * {@code leasehold.lease}; {@link dev.leasehold.micrometer.ObservationLeaseEvents}) to the
     * application's {@link ObservationRegistry} when there is exactly one (Spring Boot's Actuator
     * configures one), so traces show them inside the request's span; {@code leasehold.observations.enabled=false}
     * turns them off, {@code leasehold.observations.lock-names=true} adds the lock name. Nested so that
     * an application without micrometer-observation never loads this class.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnProperty(name = "leasehold.observations.enabled", havingValue = "true", matchIfMissing = true)
    static class Observations {

        @Bean
        RedisLocksBuilderCustomizer leaseholdObservationRegistry(ObjectProvider<ObservationRegistry> registry,
                                                                 LeaseholdProperties properties) {
            boolean lockNames = properties.getObservations().isLockNames();
            return builder -> registry.ifUnique(unique -> builder.observationRegistry(unique, lockNames));
        }
    }
}
