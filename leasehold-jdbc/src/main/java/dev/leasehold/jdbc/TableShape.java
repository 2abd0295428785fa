package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

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
        return catalog(connection, "SELECT column_name, data_type FROM information_schema.columns "
                + "WHERE table_name = ? AND table_schema = coalesce(?, current_schema()) ORDER BY ordinal_position",
                table, row -> new Column(row.getString(1), row.getString(2)));
    }

    private static String primaryKey(Connection connection, String table) throws SQLException {
        return String.join(", ", catalog(connection, "SELECT k.column_name FROM information_schema.table_constraints c "
                + "JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name "
                + "AND k.table_schema = c.table_schema AND k.table_name = c.table_name "
                + "WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_name = ? "
                + "AND c.table_schema = coalesce(?, current_schema()) ORDER BY k.ordinal_position",
                table, row -> row.getString(1)));
    }

    /** The rows of a catalog query whose two parameters are the table's name and schema, each mapped. */
    private static <T> List<T> catalog(Connection connection, String sql, String table, RowMapper<T> mapper)
            throws SQLException {
        List<T> found = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            bindName(select, table);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    found.add(mapper.map(rows));
                }
            }
        }
        return found;
    }

    /** Maps the current row of a result set. */
    @FunctionalInterface
    private interface RowMapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    private static void bindName(PreparedStatement select, String table) throws SQLException {
        int dot = table.indexOf('.');
        select.setString(1, dot < 0 ? table : table.substring(dot + 1));
        select.setString(2, dot < 0 ? null : table.substring(0, dot));
    }
}
