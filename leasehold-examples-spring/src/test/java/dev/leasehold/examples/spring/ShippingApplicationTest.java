package dev.leasehold.examples.spring;

import dev.leasehold.StaleTokenException;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * docs/spring.md's service, started as its main starts it (its application.properties, with the
 * servers given on the command line as a newcomer would), on Spring Boot 3.5, a real Redis and a
 * real PostgreSQL.
 */
class ShippingApplicationTest {

    private static RedisServer redis;
    private static PostgresServer postgres;
    private static ConfigurableApplicationContext context;

    @BeforeAll
    static void start() {
        redis = RedisServer.builder().start();
        postgres = PostgresServer.start();
        context = SpringApplication.run(ShippingApplication.class, "--leasehold.redis.uri=" + redis.uri(),
                "--spring.datasource.url=" + postgres.jdbcUrl(), "--spring.datasource.username=" + postgres.user(),
                "--spring.datasource.password=" + postgres.password());
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbc.update("INSERT INTO orders VALUES (7, 'new'), (8, 'new')");
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void anOrderIsShippedUnderItsLockAndItsTokenIsAdmitted() {
        context.getBean(Shipping.class).ship(7);

        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        assertThat(jdbc.queryForObject("SELECT state FROM orders WHERE id = 7", String.class)).isEqualTo("shipped");
        assertThat(jdbc.queryForObject("SELECT token FROM leasehold_fence WHERE resource = 'order:7'", Long.class))
                .isPositive();
    }

    @Test
    void aStaleTokenRollsTheTransactionBack() {
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbc.update("INSERT INTO leasehold_fence VALUES ('order:8', ?)", Long.MAX_VALUE);   // a newer holder wrote

        assertThatThrownBy(() -> context.getBean(Shipping.class).ship(8)).isInstanceOf(StaleTokenException.class);
        assertThat(jdbc.queryForObject("SELECT state FROM orders WHERE id = 8", String.class)).isEqualTo("new");
    }

    @Test
    void theNightlyJobRunsWithItsToken() {
        context.getBean(NightlyReport.class).nightlyReport();

        assertThat(context.getBean(JdbcTemplate.class).queryForObject("SELECT count(*) FROM reports WHERE token > 0",
                Integer.class)).isEqualTo(1);
    }
}
