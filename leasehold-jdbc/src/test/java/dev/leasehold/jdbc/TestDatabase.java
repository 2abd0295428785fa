package dev.leasehold.jdbc;

import dev.leasehold.launcher.PostgresServer;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** Data sources and one-off statements on a test {@link PostgresServer}. */
final class TestDatabase {

    private TestDatabase() {
    }

    /** A plain, unpooled data source for the server's superuser; each connection times out after 5 s of silence. */
    static PGSimpleDataSource dataSource(PostgresServer server) {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL(server.jdbcUrl());
        source.setUser(server.user());
        source.setPassword(server.password());
        source.setConnectTimeout(5);
        source.setSocketTimeout(5);
        return source;
    }

    /** Runs {@code sql} in autocommit on a fresh connection. */
    static void execute(PostgresServer server, String sql) throws SQLException {
        try (Connection connection = dataSource(server).getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
