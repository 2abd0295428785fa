package dev.leasehold.bench;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The stock table of the benchmark in PostgreSQL: one row, a count and a version. */
final class StockSql {

    private StockSql() {
    }

    static void reset(DataSource dataSource, long units) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS stock (id int PRIMARY KEY, units bigint NOT NULL, version bigint NOT NULL)");
            try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO stock VALUES (1, ?, 0) "
                    + "ON CONFLICT (id) DO UPDATE SET units = excluded.units, version = 0")) {
                upsert.setLong(1, units);
                upsert.executeUpdate();
            }
        }
    }

    static long left(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return read(connection, "SELECT units FROM stock WHERE id = 1");
        }
    }

    /**
     * Sells one unit in one transaction on {@code connection} (auto-commit off) after {@code before}
     * ran in it: reads the count with {@code select}, and writes it less one unless none is left.
     * Rolls back on any failure.
     *
     * @return whether a unit was sold
     */
    static boolean sellOne(Connection connection, String select, SqlStep before) throws Exception {
        connection.setAutoCommit(false);
        try {
            before.run(connection);
            long left = read(connection, select);
            if (left <= 0) {
                connection.rollback();
                return false;
            }
            write(connection, left - 1);
            connection.commit();
            return true;
        } catch (Exception e) {
            connection.rollback();
            throw e;
        }
    }

    /** A statement run inside {@link #sellOne}'s transaction before the read. */
    @FunctionalInterface
    interface SqlStep {
        void run(Connection connection) throws Exception;
    }

    static long read(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    static void write(Connection connection, long units) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE stock SET units = ? WHERE id = 1")) {
            update.setLong(1, units);
            update.executeUpdate();
        }
    }
}
