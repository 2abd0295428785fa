package dev.leasehold.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.launcher.PostgresServer;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * One PostgreSQL server and one HikariCP pool for the whole test JVM, started on first use and
 * closed when the JVM exits: the contract suites run many short tests, and a server per class
 * would cost a second of initdb each.
 */
final class SharedDatabase {

    private static PostgresServer server;
    private static HikariDataSource pool;

    private SharedDatabase() {
    }

    static synchronized PostgresServer server() {
        if (server == null) {
            server = PostgresServer.start();
            Runtime.getRuntime().addShutdownHook(new Thread(SharedDatabase::close, "shared-database-close"));
        }
        return server;
    }

    static synchronized HikariDataSource pool() {
        if (pool == null) {
            pool = pool(server(), 24);
            warmUp(pool);
        }
        return pool;
    }

    /** A HikariCP pool on {@code server} whose connections give up after 5 s of silence. */
    static HikariDataSource pool(PostgresServer server, int size) {
        return pool(server, size, "leasehold-tests");
    }

    /** {@link #pool(PostgresServer, int)} whose connections show {@code applicationName} in {@code pg_stat_activity}. */
    static HikariDataSource pool(PostgresServer server, int size, String applicationName) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.jdbcUrl());
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(Math.min(size, 4));
        config.setConnectionTimeout(5_000);
        config.addDataSourceProperty("socketTimeout", "5");
        config.addDataSourceProperty("connectTimeout", "5");
        config.addDataSourceProperty("ApplicationName", applicationName);
        return new HikariDataSource(config);
    }

    /**
     * Opens connections before the first test: a timing test (a 300 ms lease renewed at once) must
     * not pay for SCRAM handshakes of a cold pool on a loaded machine.
     */
    private static void warmUp(HikariDataSource pool) {
        List<Connection> open = new ArrayList<>();
        try {
            for (int i = 0; i < 12; i++) {
                Connection connection = pool.getConnection();
                open.add(connection);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SELECT 1");
                }
            }
            for (Connection connection : open) {
                connection.close();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot warm up the test pool", e);
        }
    }

    private static synchronized void close() {
        if (pool != null) {
            pool.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
