package dev.leasehold.compat;

import dev.leasehold.Lease;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.spring.Locked;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The starter in a real Spring Boot application of the line the BOM picked: the auto-configured
 * client, a {@link Locked} method with its lease, and the health indicator (Boot 3 and Boot 4 keep
 * it in different packages, so it is called through its common {@code health()} method).
 */
class StarterUnderSpringBootTest {

    @SpringBootApplication
    static class App {
        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    static class Orders {
        @Locked(name = "'compat:order:' + #id", waitFor = "5s")
        public long pay(long id) {
            return Lease.current().token();
        }
    }

    @Test
    void lockedMethodsAndTheHealthIndicatorWork() throws Exception {
        System.out.println("Spring Boot " + SpringBootVersion.getVersion());
        try (RedisServer server = RedisServer.builder().start();
             ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                     .web(WebApplicationType.NONE).properties("leasehold.redis.uri=" + server.uri()).run()) {
            Orders orders = context.getBean(Orders.class);
            long first = orders.pay(7);
            assertTrue(orders.pay(7) > first, "each call holds a new lease with a greater token");

            Object indicator = context.getBean("leaseholdHealthIndicator");
            Object health = indicator.getClass().getMethod("health").invoke(indicator);
            assertEquals("UP", health.getClass().getMethod("getStatus").invoke(health).toString(),
                    "the health of " + indicator.getClass().getSimpleName());
        }
    }
}
