package dev.leasehold.bench;

import dev.leasehold.launcher.PostgresServer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the SQL statements a PostgreSQL server runs for some work, from the server's own log: while
 * the census is open the server logs every statement ({@code log_statement = 'all'}, set with
 * {@code ALTER SYSTEM} and a reload, reset by {@link #close()}), and {@link #count} counts the lines
 * logged between two marker statements around the work. Only the benchmark's own server is touched,
 * and only around the counted work, so timed cells run without the logging.
 *
 * <p>pgjdbc sends each statement of a string like {@code "SET ...; SELECT ..."} on its own through the
 * extended protocol (one round trip for the string), and the server logs each one, {@code BEGIN} and
 * {@code COMMIT} included; a simple-protocol string would be logged, and counted, once.
 */
final class StatementCensus implements AutoCloseable {

    /** A statement as PostgreSQL's default log line prefix logs it: {@code ... LOG:  execute S_1: BEGIN}. */
    private static final Pattern LOGGED = Pattern.compile(" LOG:  (?:execute [^:]*|statement): (.*)$");
    private static final Pattern FIRST_WORD = Pattern.compile("^[\\s(]*([A-Za-z]+)");
    private static final AtomicLong MARKERS = new AtomicLong();

    /**
     * What some work cost: {@code statements} by their first keyword, upper case (e.g. {@code SET},
     * {@code SELECT}, {@code BEGIN}), for {@code operations} operations.
     */
    record Tally(long operations, SortedMap<String, Long> statements) {

        /** Statements per operation, all kinds together. */
        double perOperation() {
            return statements.values().stream().mapToLong(Long::longValue).sum() / (double) Math.max(1, operations);
        }

        /** E.g. {@code "6.00 (2.00 BEGIN, 2.00 COMMIT, 2.00 UPDATE)"}: per operation, most frequent kind first. */
        String describe() {
            List<String> kinds = statements.entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                    .map(e -> Fmt.two(e.getValue() / (double) Math.max(1, operations)) + " " + e.getKey())
                    .toList();
            return String.format(Locale.ROOT, "%.2f (%s)", perOperation(), String.join(", ", kinds));
        }
    }

    private final PostgresServer server;
    private final Connection admin;

    private StatementCensus(PostgresServer server, Connection admin) {
        this.server = server;
        this.admin = admin;
    }

    /**
     * Makes {@code server} log every statement from now on, until {@link #close()}. Sessions take the
     * setting at their next message after the reload reaches them, so let the work warm up before the
     * first {@link #count}.
     *
     * @throws SQLException if the server refuses (its user must be a superuser, as the launcher's is)
     */
    static StatementCensus open(PostgresServer server) throws SQLException, InterruptedException {
        Connection admin = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
        try (Statement statement = admin.createStatement()) {
            statement.execute("ALTER SYSTEM SET log_statement = 'all'");
            statement.execute("SELECT pg_reload_conf()");
        } catch (SQLException e) {
            admin.close();
            throw e;
        }
        Thread.sleep(300); // the postmaster passes the reload on to every session asynchronously
        return new StatementCensus(server, admin);
    }

    /**
     * Runs {@code work}, which returns how many operations it made, and counts the statements the
     * server logged meanwhile (anything else running on the server then counts too).
     */
    Tally count(Callable<Long> work) throws Exception {
        String begin = marker();
        String end = marker();
        try (Statement statement = admin.createStatement()) {
            statement.execute("SELECT '" + begin + "'");
            long operations = work.call();
            statement.execute("SELECT '" + end + "'");
            return new Tally(operations, between(server.logTail(Integer.MAX_VALUE), begin, end));
        }
    }

    private static String marker() {
        return "leasehold-census-" + MARKERS.incrementAndGet();
    }

    /**
     * The statements logged after the line holding {@code begin} and before the one holding {@code end}
     * (each quoted, as the marker statements hold them), by first keyword.
     */
    static SortedMap<String, Long> between(String log, String begin, String end) {
        SortedMap<String, Long> kinds = new TreeMap<>();
        boolean inside = false;
        for (String line : log.split("\n")) {
            if (line.contains("'" + begin + "'")) {
                inside = true;
            } else if (line.contains("'" + end + "'")) {
                return kinds;
            } else if (inside) {
                Matcher logged = LOGGED.matcher(line);
                if (logged.find()) {
                    Matcher word = FIRST_WORD.matcher(logged.group(1));
                    kinds.merge(word.find() ? word.group(1).toUpperCase(Locale.ROOT) : "(other)", 1L, Long::sum);
                }
            }
        }
        throw new IllegalStateException("the server log has no line with " + (inside ? end : begin)
                + ": is log_statement in force?");
    }

    /** Stops logging every statement. */
    @Override
    public void close() throws SQLException {
        try (admin; Statement statement = admin.createStatement()) {
            statement.execute("ALTER SYSTEM RESET log_statement");
            statement.execute("SELECT pg_reload_conf()");
        }
    }
}
