package dev.leasehold.compat;

import dev.leasehold.Lease;
import dev.leasehold.launcher.FreePorts;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.spring.Locked;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The starter in a real Spring Boot application of the line the BOM picked: the auto-configured
 * client, a {@link Locked} method with its lease, its observations (which Actuator's observation
 * registry turns into timers), the health indicator (Boot 3 and Boot 4 keep it in different packages,
 * so it is called through its common {@code health()} method), and the lazy connect.
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

            Timer acquired = context.getBean(MeterRegistry.class).find("leasehold.acquire")
                    .tag("leasehold.outcome", "acquired").timer();
            assertNotNull(acquired, "the acquire observations became a timer through Actuator's observation registry");
            assertEquals(2, acquired.count());

            assertEquals("UP", health(context));
        }
    }

    @Test
    void withALazyConnectTheApplicationStartsWhileRedisIsDown() throws Exception {
        int port = FreePorts.find();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties("leasehold.redis.uri=redis://127.0.0.1:" + port,
                        "leasehold.redis.connect-on-startup=false", "leasehold.redis.operation-timeout=500ms").run()) {
            assertEquals("DOWN", health(context));
            try (RedisServer server = RedisServer.builder().port(port).start()) {
                assertTrue(context.getBean(Orders.class).pay(8) > 0, "the first call connected");
                assertEquals("UP", health(context));
            }
        }
    }

    private static String health(ConfigurableApplicationContext context) throws Exception {
        Object indicator = context.getBean("leaseholdHealthIndicator");
        Object health = indicator.getClass().getMethod("health").invoke(indicator);
        return health.getClass().getMethod("getStatus").invoke(health).toString();
    }
}
