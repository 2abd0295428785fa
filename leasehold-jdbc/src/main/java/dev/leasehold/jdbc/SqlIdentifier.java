package dev.leasehold.jdbc;

import dev.leasehold.spi.Args;

import java.util.regex.Pattern;

/**
 * A table name that may be placed into SQL text: JDBC cannot bind an identifier as a parameter, so
 * a configurable table name is checked against a strict shape instead of ever being concatenated
 * unchecked.
 */
final class SqlIdentifier {

    /** One unquoted PostgreSQL identifier (at most 63 bytes), optionally qualified by a schema. */
    private static final Pattern SHAPE = Pattern.compile("([a-z_][a-z0-9_]{0,62}\\.)?[a-z_][a-z0-9_]{0,62}");

    private SqlIdentifier() {
    }

    /**
     * Returns {@code name} if it is a plain lower-case identifier, {@code table} or {@code schema.table}.
     *
     * @throws IllegalArgumentException naming the argument and the accepted shape otherwise
     */
    static String table(String argument, String name) {
        Args.notNull(argument, name);
        if (!SHAPE.matcher(name).matches()) {
            throw new IllegalArgumentException(argument + " must be a lower-case SQL identifier, 'table' or 'schema.table', "
                    + "of letters, digits and '_' (at most 63 each, not starting with a digit); got '" + name + "'");
        }
        return name;
    }

    /**
     * {@link #table}, with the table part (after any schema) at most {@code maxLength} characters:
     * for a table whose name also prefixes other identifiers (a {@code <table>_token} sequence),
     * which must fit the 63 bytes too.
     *
     * @throws IllegalArgumentException naming the argument, the value given and the limit otherwise
     */
    static String table(String argument, String name, int maxLength) {
        table(argument, name);
        int dot = name.indexOf('.');
        if (name.length() - dot - 1 > maxLength) {
            throw new IllegalArgumentException(argument + " must be at most " + maxLength + " characters after any "
                    + "schema (the sequence '<table>_token' must fit PostgreSQL's identifier limit); got '" + name
                    + "', whose table part has " + (name.length() - dot - 1));
        }
        return name;
    }

    /**
     * {@code name} (already checked by {@link #table}) as quoted SQL text, {@code "schema"."table"}:
     * the same identifiers as unquoted ones, since they are lower-case, but keywords such as
     * {@code order} or {@code user} are then names too.
     */
    static String quoted(String name) {
        return "\"" + name.replace(".", "\".\"") + "\"";
    }
}
