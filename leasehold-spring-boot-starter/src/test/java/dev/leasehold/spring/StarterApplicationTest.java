package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Spring Boot application as a user writes it: the starter on the classpath, auto-configuration
 * found through {@code META-INF/spring/...AutoConfiguration.imports}, one property, a
 * {@code @Locked} method and the health contributor {@code leasehold}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class StarterApplicationTest {

    @Test
    void oneSpringDataRedisPropertyGivesLocksLockedMethodsAndHealth() {
        try (RedisServer server = RedisServer.builder().start();
             ConfigurableApplicationContext app = new SpringApplicationBuilder(Application.class)
                     .web(WebApplicationType.NONE)
                     .properties("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port())
                     .run()) {
            assertThat(app.getBean(LockClient.class).describe()).isEqualTo(server.uri());
            assertThat(app.getBean(Invoices.class).issue(12)).isEqualTo("invoice:12");
            HealthIndicator health = (HealthIndicator) app.getBean(HealthContributorRegistry.class)
                    .getContributor("leasehold");
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        }
    }

    @Test
    void aBadConfigurationStopsTheApplicationWithBootsFailureReportNamingTheProperty(CapturedOutput output) {
        SpringApplicationBuilder app = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
                .properties("spring.data.redis.url=localhost:6379");
        assertThatThrownBy(app::run).hasRootCauseInstanceOf(LeaseholdConfigurationException.class);
        assertThat(output.getAll()).contains("APPLICATION FAILED TO START")
                .contains("Leasehold cannot start with spring.data.redis.url: must start with redis://")
                .contains("Correct spring.data.redis.url");
    }

    /** A typo in application.properties (here typo.properties) stops the start, saying which file and line. */
    @Test
    void aMistypedPropertyIsReportedWithItsFileAndLineAndTheClosestName(CapturedOutput output) {
        SpringApplicationBuilder app = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
                .properties("spring.config.location=classpath:typo.properties");
        assertThatThrownBy(app::run).isInstanceOf(LeaseholdConfigurationException.class)
                .hasMessageContaining("leasehold.redis.operation-timout: is not a Leasehold property "
                        + "(set in class path resource [typo.properties]")
                .hasMessageContaining("did you mean leasehold.redis.operation-timeout?");
        assertThat(output.getAll()).contains("APPLICATION FAILED TO START");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
        @Bean
        Invoices invoices() {
            return new Invoices();
        }
    }

    static class Invoices {
        @Locked(name = "'invoice:' + #number", waitFor = "5s")
        public String issue(long number) {
            return Lease.current().lockName();
        }
    }
}
