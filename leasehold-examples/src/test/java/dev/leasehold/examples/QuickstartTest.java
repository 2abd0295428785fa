package dev.leasehold.examples;

import dev.leasehold.jdbc.JdbcFenceGuard;
import dev.leasehold.launcher.PostgresServer;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** README's example, run as a newcomer runs it: its main, against a real Redis and PostgreSQL. */
class QuickstartTest {

    @Test
    void theOrderIsShippedUnderAnAdmittedToken() throws Exception {
        PostgresServer db = Servers.postgres();
        Quickstart.main(new String[] {Servers.redisUri(), db.jdbcUrl(), db.user(), db.password()});
        Quickstart.main(new String[] {Servers.redisUri(), db.jdbcUrl(), db.user(), db.password()});

        try (Connection c = Servers.dataSource().getConnection(); Statement query = c.createStatement();
             ResultSet row = query.executeQuery("SELECT state FROM orders WHERE id = 123")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString(1)).isEqualTo("shipped");
            assertThat(new JdbcFenceGuard().highestAdmitted(c, "order:123")).as("the second run's token").isPositive();
        }
    }
}
