package dev.leasehold.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The DDL of this module's tables, read from {@code schema.sql} beside this class: the one place it
 * is written, which the documentation quotes too. Each table is a region of that file between
 * {@code -- tag::NAME[]} and {@code -- end::NAME[]}, written for the default names; a configured
 * name replaces the default identifier wherever it stands as a whole word.
 */
final class SchemaSql {

    private static final String RESOURCE = "schema.sql";
    private static final String TEXT = load();

    private SchemaSql() {
    }

    /**
     * The statements of region {@code tag}, comments dropped, each default identifier (a key of
     * {@code names}) replaced by its value, SQL text the caller has already validated and quoted.
     *
     * @throws IllegalStateException if the region is missing (a broken build)
     */
    static List<String> statements(String tag, Map<String, String> names) {
        String open = "-- tag::" + tag + "[]";
        String close = "-- end::" + tag + "[]";
        int start = TEXT.indexOf(open);
        int end = TEXT.indexOf(close);
        if (start < 0 || end < start) {
            throw new IllegalStateException(RESOURCE + " has no region " + tag);
        }
        StringBuilder sql = new StringBuilder();
        for (String line : TEXT.substring(start + open.length(), end).split("\n")) {
            int comment = line.indexOf("--");
            sql.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        String text = sql.toString();
        for (Map.Entry<String, String> name : names.entrySet()) {
            text = Pattern.compile("\\b" + Pattern.quote(name.getKey()) + "\\b").matcher(text)
                    .replaceAll(Matcher.quoteReplacement(name.getValue()));
        }
        List<String> statements = new ArrayList<>();
        for (String statement : text.split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip().replaceAll("\\s+", " "));
            }
        }
        return statements;
    }

    private static String load() {
        try (InputStream in = SchemaSql.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing beside " + SchemaSql.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
