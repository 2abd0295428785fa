package dev.leasehold.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.bench.PeerBench.Peer;
import dev.leasehold.bench.PeerBench.Ratio;
import dev.leasehold.bench.PeerBench.Settings;
import dev.leasehold.bench.PeerBench.Table;
import dev.leasehold.bench.StatementCensus.Tally;
import dev.leasehold.jdbc.JdbcLocks;
import dev.leasehold.launcher.PostgresServer;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Leasehold's PostgreSQL backend ({@link JdbcLocks}) against the locks a PostgreSQL shop would pick
 * instead, on one database in one run: Spring Integration's {@code JdbcLockRegistry} and ShedLock's
 * {@code JdbcTemplateLockProvider}. The rows and the method are {@link PeerBench}'s; after the timed
 * rounds a {@link StatementCensus} counts the statements the server ran per uncontended lock+release
 * and per contended acquisition, for each peer.
 *
 * <pre>
 * java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.PostgresBench [--smoke] [--out FILE]
 * </pre>
 */
public final class PostgresBench {

    static final String LEASEHOLD = "Leasehold";

    /** Leasehold's watchdog lease, Spring Integration's lock row TTL and ShedLock's lockAtMostFor alike. */
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final int CONTENDED_CLIENTS = 8;

    /**
     * One run's figures.
     *
     * @param server      the server's version string
     * @param table       the measured cells
     * @param ratios      the ratio columns (Leasehold over each peer)
     * @param uncontended statements per lock+release, one thread on one name, by peer
     * @param contended   statements per acquisition, {@value #CONTENDED_CLIENTS} clients on one name, by peer
     */
    record Result(String server, Table table, List<Ratio> ratios, Map<String, Tally> uncontended,
                  Map<String, Tally> contended) {
    }

    private PostgresBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs parsed = BenchArgs.parse(args, "PostgresBench", Path.of("leasehold-bench", "POSTGRES.md"));
        Settings settings = parsed.smoke() ? Settings.smoke() : full();
        Instant started = Instant.now();
        Result result = run(settings);
        Duration took = Duration.between(started, Instant.now());
        Map<String, String> images = ReportCharts.write(parsed.out(),
                PeerCharts.of(List.of(result.table()), settings, PeerCharts.provenance()));
        parsed.publish(markdown(result, settings, took, images));
    }

    /**
     * PeerBench's full settings with 5 rounds instead of 3 (a PostgreSQL cell is cheap to repeat), and
     * a handoff hold that varies by up to the longest poll (Spring Integration's), so that no polling
     * peer meets the releases at one point of its poll.
     */
    static Settings full() {
        Settings full = Settings.full();
        return new Settings(5, full.warmUp(), full.measure(), full.handoffs(), full.hold(),
                SpringJdbcLockAdapter.IDLE_BETWEEN_TRIES);
    }

    /** Starts a PostgreSQL server, measures the three peers on it, counts their statements, stops it. */
    static Result run(Settings settings) throws Exception {
        try (PostgresServer server = PostgresServer.start()) {
            String version;
            try (HikariDataSource setup = PostgresPool.open(server, 1, 1);
                 Connection connection = setup.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute(SpringJdbcLockAdapter.tableDdl());
                statement.execute(ShedLockJdbcAdapter.tableDdl());
                try (ResultSet row = statement.executeQuery("SHOW server_version")) {
                    row.next();
                    version = row.getString(1);
                }
            }
            List<Peer> peers = List.of(
                    new Peer(LEASEHOLD, threads -> withPool(server, threads, pool ->
                            new LeaseholdAdapter(JdbcLocks.create(pool), TTL, LEASEHOLD))),
                    new Peer(SpringJdbcLockAdapter.LABEL, threads -> withPool(server, threads, SpringJdbcLockAdapter::open)),
                    new Peer(ShedLockJdbcAdapter.LABEL, threads -> withPool(server, threads, ShedLockJdbcAdapter::open)));
            Table table = PeerBench.measure("PostgreSQL", settings, peers);
            Map<String, Tally> uncontended = new LinkedHashMap<>();
            Map<String, Tally> contended = new LinkedHashMap<>();
            try (StatementCensus census = StatementCensus.open(server)) {
                for (Peer peer : peers) {
                    uncontended.put(peer.label(), countUncontended(census, peer, settings));
                    contended.put(peer.label(), countContended(census, peer, settings));
                }
            }
            List<Ratio> ratios = List.of(new Ratio(LEASEHOLD, SpringJdbcLockAdapter.LABEL),
                    new Ratio(LEASEHOLD, ShedLockJdbcAdapter.LABEL));
            return new Result(version, table, ratios, uncontended, contended);
        }
    }

    /**
     * A client made by {@code client} on a pool of its own, which closes with it: one connection per
     * thread that shares the client, and one for Leasehold's {@code LISTEN}, all opened before the cell.
     */
    private static LockAdapter withPool(PostgresServer server, int threads, Function<DataSource, LockAdapter> client) {
        HikariDataSource pool = PostgresPool.open(server, threads + 1, threads + 1);
        try {
            return client.apply(pool).closing(pool);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /** One thread locking and releasing one name, as the 1-thread row does, after a warm-up that is not counted. */
    private static Tally countUncontended(StatementCensus census, Peer peer, Settings settings) throws Exception {
        try (LockAdapter adapter = peer.open().apply(1)) {
            PeerBench.uncontended(adapter, 1, settings.warmUp());
            return census.count(() -> PeerBench.uncontended(adapter, 1, settings.measure()).operations());
        }
    }

    /** The contended row's workload on clients opened (and warmed up) before the count, so their setup is not counted. */
    private static Tally countContended(StatementCensus census, Peer peer, Settings settings) throws Exception {
        List<LockAdapter> clients = new ArrayList<>();
        try {
            for (int i = 0; i < CONTENDED_CLIENTS; i++) {
                clients.add(peer.open().apply(1));
            }
            PeerBench.contended(clients, settings.warmUp());
            return census.count(() -> PeerBench.contended(clients, settings.measure()).operations());
        } finally {
            clients.forEach(LockAdapter::close);
        }
    }

    /** The report without charts. */
    static String markdown(Result result, Settings settings, Duration took) {
        return markdown(result, settings, took, Map.of());
    }

    /** The report, its table followed by its charts in {@code images} (from {@link ReportCharts#write}). */
    static String markdown(Result result, Settings settings, Duration took, Map<String, String> images) {
        StringBuilder text = new StringBuilder("# Leasehold on PostgreSQL against Spring Integration and ShedLock\n\n")
                .append("Revision ").append(Machine.revision(List.of("leasehold-core", "leasehold-jdbc"))).append(". ")
                .append(PeerBench.method(settings, took))
                .append("\nOne PostgreSQL ").append(result.server()).append(" server (fsync off), started by the run; ")
                .append("every client has its own HikariCP pool, opened before its cell, of one connection per thread ")
                .append("using the client and one more (Leasehold's `LISTEN`). Leasehold: `JdbcLocks.create(pool)` with its defaults (8 JDBC threads), watchdog ")
                .append("leases of ").append(TTL.toSeconds()).append(" s, waiters woken by `LISTEN`/`NOTIFY`. ")
                .append(SpringJdbcLockAdapter.LABEL).append(" ").append(Machine.library("Spring Integration"))
                .append(": lock rows of ").append(TTL.toSeconds()).append(" s (its default), a blocked `lock()` ")
                .append("polls every ").append(SpringJdbcLockAdapter.IDLE_BETWEEN_TRIES.toMillis())
                .append(" ms (its default). ").append(ShedLockJdbcAdapter.LABEL).append(" ")
                .append(Machine.library("ShedLock")).append(": `usingDbTime()`, lockAtMostFor ")
                .append(ShedLockJdbcAdapter.LOCK_AT_MOST_FOR_SECONDS).append(" s. ShedLock has no blocking acquire ")
                .append("(a job that finds its lock taken skips its run), so its contended and handoff cells retry ")
                .append("`lock()` every ").append(ShedLockJdbcAdapter.RETRY.toMillis()).append(" ms: they measure ")
                .append("that poll, which an application would have to write, not a feature of ShedLock. Neither ")
                .append("peer issues a fencing token. A handoff's holder keeps the lock ").append(settings.hold().toMillis())
                .append(" ms plus a uniform random 0-").append(settings.holdJitter().toMillis())
                .append(" ms, so the releases fall anywhere in a poller's period.\n")
                .append(PeerBench.markdown(result.table(), result.ratios()))
                .append(ReportCharts.images(images, PeerCharts.names(result.table())))
                .append("\nStatements the server ran (its log with `log_statement = 'all'`, switched on after the ")
                .append("timed rounds; `BEGIN` and `COMMIT` count as statements):\n\n")
                .append("| peer | per lock+release, 1 thread on one name | per acquisition, ").append(CONTENDED_CLIENTS)
                .append(" clients on one name |\n| --- | --- | --- |\n");
        result.uncontended().forEach((peer, tally) -> text.append("| ").append(peer).append(" | ")
                .append(tally.describe()).append(" | ").append(result.contended().get(peer).describe()).append(" |\n"));
        return text.toString();
    }
}
