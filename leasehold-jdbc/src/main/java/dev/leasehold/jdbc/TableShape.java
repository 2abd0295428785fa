package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Checks that an existing table has the columns Leasehold writes, so a table of the same name made
 * for something else is reported clearly instead of failing later inside a lock or a guard.
 */
final class TableShape {

    /** A column and its type as {@code information_schema.columns.data_type} names it. */
    record Column(String name, String type) {
        @Override
        public String toString() {
            return name + " " + type;
        }
    }

    private TableShape() {
    }

    /**
     * @param table {@code table} or {@code schema.table}, already validated
     * @param key the column that must be the primary key (alone)
     * @throws JdbcTableException naming the table, what it has and what is expected
     */
    static void require(Connection connection, String table, List<Column> expected, String key) throws SQLException {
        List<Column> actual = columns(connection, table);
        String primaryKey = primaryKey(connection, table);
        boolean columnsFit = expected.stream().allMatch(actual::contains);
        if (!columnsFit || !key.equals(primaryKey)) {
            throw new JdbcTableException("table " + table + " exists with columns " + actual + " and primary key ("
                    + primaryKey + "), but Leasehold needs at least " + expected + " with primary key (" + key
                    + "): drop or rename it, or configure another table name");
        }
    }

    private static List<Column> columns(Connection connection, String table) throws SQLException {
        String sql = "SELECT column_name, data_type FROM information_schema.columns "
                + "WHERE table_name = ? AND table_schema = coalesce(?, current_schema()) ORDER BY ordinal_position";
        List<Column> columns = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            bindName(select, table);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    columns.add(new Column(rows.getString(1), rows.getString(2)));
                }
            }
        }
        return columns;
    }

    private static String primaryKey(Connection connection, String table) throws SQLException {
        String sql = "SELECT k.column_name FROM information_schema.table_constraints c "
                + "JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name "
                + "AND k.table_schema = c.table_schema AND k.table_name = c.table_name "
                + "WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_name = ? "
                + "AND c.table_schema = coalesce(?, current_schema()) ORDER BY k.ordinal_position";
        List<String> names = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            bindName(select, table);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        }
        return names.stream().collect(Collectors.joining(", "));
    }

    private static void bindName(PreparedStatement select, String table) throws SQLException {
        int dot = table.indexOf('.');
        select.setString(1, dot < 0 ? table : table.substring(dot + 1));
        select.setString(2, dot < 0 ? null : table.substring(0, dot));
    }
}
