package dev.leasehold.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.DistributedLock;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.launcher.PgBouncer;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.testkit.fault.LyingRenewals;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.history.Hold;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PostgreSQL fault scenarios of issue 19, history-checked: a client partitioned from the
 * database mid-acquire and mid-hold (a {@link FaultProxy} between them), the database killed during
 * an acquire, and PgBouncer in transaction pooling between clients and database while their server
 * connections are terminated. Each asserts that the fenced counter admitted no stale write, that no
 * two holders' valid intervals overlap (the overlap is printed, expected 0 ms), and that every lease
 * that lost its backend reported the loss by its local deadline. A deliberately broken client whose
 * renewals "succeed" while the database is unreachable proves the checks catch an overlap under the
 * same partition. Each scenario runs 8 s ({@code -Dfaults.minutes=N} for a soak).
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcPartitionTest {

    private static final LockOptions LEASE = LockOptions.watchdog(Duration.ofSeconds(1));
    /** Scheduler slack on a loaded two-core machine, on top of a local deadline. */
    private static final long SLACK_MILLIS = 100;
    private static final Duration PARTITION = Duration.ofMillis(2500);
    private static final String PARTITIONED = "partitioned";

    @RegisterExtension
    static final TestServer<PostgresServer> server = TestServer.perClass(() -> PostgresServer.start());
    private final List<AutoCloseable> closing = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void closeAll() throws Exception {
        List<AutoCloseable> all = new ArrayList<>(closing);
        Collections.reverse(all);
        for (AutoCloseable each : all) {
            each.close();
        }
        closing.clear();
    }

    @Test
    void aClientPartitionedMidHoldLosesItsLeaseByItsDeadlineAndNoTwoHoldersOverlap() throws Exception {
        FaultProxy proxy = closed(FaultProxy.start(server.get().host(), server.get().port()));
        JdbcLockClient partitioned = closed(JdbcLocks.create(pool(url(proxy.host(), proxy.port()), PARTITIONED)));
        JdbcLockClient direct = closed(JdbcLocks.create(pool(server.get().jdbcUrl(), "direct")));
        AtomicInteger partitions = new AtomicInteger();
        int lost = 0;
        // Every run must be safe. The direct client can win every handoff of a short run, so the
        // partitioned one may never hold, or be cut only as it releases: such a run shows no loss, and a
        // new one (at most two more) is made.
        for (int run = 0; run < 3 && lost == 0; run++) {
            String name = "partition:hold:" + System.nanoTime();
            FaultRun.Result result = new FaultRun(PARTITIONED).run(locks(name, partitioned, direct), holders(),
                    FaultRun.duration(), end -> {
                        while (System.nanoTime() < end) {
                            if (partitioned.heldLeases() > 0) {
                                partition(proxy);
                                partitions.incrementAndGet();
                            } else {
                                FaultRun.pause(5);
                            }
                        }
                    });
            report("partitioned mid-hold (" + partitions + " partitions)", result);
            assertSafe(result);
            lost = result.leasesLost();
        }
        assertThat(partitions.get()).isPositive();
        assertThat(lost).as("a partition cost the partitioned holder its lease, in one of three runs").isPositive();
    }

    @Test
    void aClientPartitionedMidAcquireDoesNotStrandTheLockAndNoTwoHoldersOverlap() throws Exception {
        FaultProxy proxy = closed(FaultProxy.start(server.get().host(), server.get().port()));
        JdbcLockClient partitioned = closed(JdbcLocks.create(pool(url(proxy.host(), proxy.port()), PARTITIONED)));
        JdbcLockClient direct = closed(JdbcLocks.create(pool(server.get().jdbcUrl(), "direct")));
        String name = "partition:acquire:" + System.nanoTime();
        List<long[]> windows = Collections.synchronizedList(new ArrayList<>());
        FaultRun.Result result;
        try (Connection watcher = TestDatabase.dataSource(server.get()).getConnection()) {
            result = new FaultRun().run(locks(name, partitioned, direct), holders(), FaultRun.duration(), end -> {
                while (System.nanoTime() < end) {
                    proxy.latency(Duration.ofMillis(5)); // widens the acquire transaction for the watcher to see
                    if (advisoryLockHeldBy(watcher, PARTITIONED)) {
                        long from = System.nanoTime();
                        partition(proxy);
                        windows.add(new long[] {from, System.nanoTime()});
                    } else {
                        FaultRun.pause(1);
                    }
                }
            });
        }
        long directDuringPartitions = result.holds().stream()
                .filter(hold -> hold.holder().startsWith("direct"))
                .filter(hold -> windows.stream().anyMatch(w -> hold.acquiredNanos() > w[0] && hold.acquiredNanos() < w[1]))
                .count();
        report("partitioned mid-acquire (" + windows.size() + " partitions; the direct client took the lock "
                + directDuringPartitions + " times during them)", result);
        assertSafe(result);
        assertThat(windows).as("partitions that caught the client holding the advisory lock mid-acquire").isNotEmpty();
        assertThat(directDuringPartitions).as("the lock was not stranded by the partitioned acquire").isPositive();
    }

    @Test
    void theDatabaseKilledDuringAnAcquireGrantsNothingTwice() throws Exception {
        JdbcLockClient first = closed(JdbcLocks.create(pool(server.get().jdbcUrl(), "first")));
        JdbcLockClient second = closed(JdbcLocks.create(pool(server.get().jdbcUrl(), "second")));
        String name = "kill:acquire:" + System.nanoTime();
        AtomicInteger kills = new AtomicInteger();
        FaultRun.Result result = new FaultRun().run(locks(name, first, second), holders(), FaultRun.duration(), end -> {
            while (System.nanoTime() < end - TimeUnit.SECONDS.toNanos(2)) {
                FaultRun.pause(1_000);
                boolean inAcquire;
                try (Connection watcher = TestDatabase.dataSource(server.get()).getConnection()) {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                    do {
                        inAcquire = advisoryLockHeldBy(watcher, null);
                    } while (!inAcquire && System.nanoTime() < until);
                }
                server.get().kill();
                kills.incrementAndGet();
                FaultRun.pause(500);
                server.get().restart();
            }
        });
        report("database killed during an acquire (" + kills + " kills)", result);
        assertSafe(result);
        assertThat(kills.get()).isPositive();
    }

    @Test
    void behindPgBouncerInTransactionPoolingNoTwoHoldersOverlap() throws Exception {
        PgBouncer bouncer = closed(PgBouncer.start(server.get()));
        JdbcLockClient first = closed(JdbcLocks.create(pool(bouncer.jdbcUrl(), "first")));
        JdbcLockClient second = closed(JdbcLocks.create(pool(bouncer.jdbcUrl(), "second")));
        String name = "pgbouncer:" + System.nanoTime();
        AtomicInteger terminated = new AtomicInteger();
        FaultRun.Result result = new FaultRun().run(locks(name, first, second), holders(), FaultRun.duration(), end -> {
            while (System.nanoTime() < end) {
                FaultRun.pause(1_500);
                try (Connection admin = TestDatabase.dataSource(server.get()).getConnection();
                     Statement statement = admin.createStatement();
                     ResultSet rows = statement.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                             + "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")) {
                    rows.next();
                    terminated.addAndGet(rows.getInt(1));
                }
            }
        });
        report("behind PgBouncer, transaction pooling (" + terminated + " server connections terminated)", result);
        assertSafe(result);
        assertThat(result.holds().size()).as("holds through the pooler").isGreaterThan(4);
    }

    /** The checks are only trusted because they catch this: renewals reported successful while the database is unreachable. */
    @Test
    void theChecksCatchAnOverlapWhenRenewalsLieUnderAPartition() throws Exception {
        FaultProxy proxy = closed(FaultProxy.start(server.get().host(), server.get().port()));
        JdbcLockClient direct = closed(JdbcLocks.create(pool(server.get().jdbcUrl(), "direct")));
        HikariDataSource behindProxy = pool(url(proxy.host(), proxy.port()), PARTITIONED);
        LeaseEngine lying = lyingEngine();
        JdbcLockProtocol protocol = lyingProtocol(behindProxy);
        AtomicInteger partitions = new AtomicInteger();
        FaultRun.Result result = null;
        // The direct client can win every handoff of a short run, so the broken one never holds and no
        // partition is cut; such a run proves nothing either way, and a new one (at most two more) is made.
        for (int run = 0; run < 3 && partitions.get() == 0; run++) {
            String name = "partition:lying:" + System.nanoTime();
            List<DistributedLock> locks = List.of(lying.lock(IndexedText.name(name), LEASE, new LyingRenewals(protocol)),
                    lying.lock(IndexedText.name(name), LEASE, new LyingRenewals(protocol)),
                    direct.lock(name, LEASE), direct.lock(name, LEASE));
            result = new FaultRun(PARTITIONED).run(locks, holders(), FaultRun.duration(), end -> {
                while (System.nanoTime() < end) {
                    if (lying.heldLeases() > 0) {
                        partition(proxy);
                        partitions.incrementAndGet();
                        FaultRun.pause(500);
                    } else {
                        FaultRun.pause(5);
                    }
                }
            });
            report("BROKEN (lying renewals), partitioned mid-hold (" + partitions + " partitions)", result);
        }
        assertThat(partitions.get()).as("the broken client held the lock and was partitioned in one of three runs")
                .isPositive();
        assertThat(result.verdict().overlaps()).as(result.toString()).isPositive();
        assertThat(result.maxOverlapMillis()).isPositive();
    }

    private static void assertSafe(FaultRun.Result result) {
        assertThat(result.verdict().staleWritesAdmitted()).as(result.toString()).isZero();
        assertThat(result.verdict().overlaps()).as(result.toString()).isZero();
        assertThat(result.maxOverlapMillis()).as(result.toString()).isZero();
        assertThat(result.verdict().isValid()).as(result.toString()).isTrue();
        assertThat(result.maxLostLateMillis()).as("lost() after the local deadline: " + result).isLessThanOrEqualTo(SLACK_MILLIS);
        assertThat(result.holds()).isNotEmpty();
    }

    private static void report(String scenario, FaultRun.Result result) {
        System.out.println("PostgreSQL fault scenario, " + scenario + ": " + result);
    }

    /** Cuts the proxy's link both ways for {@link #PARTITION}, then resets its connections (they lost bytes) and heals. */
    private static void partition(FaultProxy proxy) throws InterruptedException {
        proxy.blackhole();
        Thread.sleep(PARTITION.toMillis());
        proxy.cutAll();
        proxy.pass();
        Thread.sleep(1_000);
    }

    /** Whether a session (of {@code application}, or any other than the caller's) holds an advisory lock now. */
    private static boolean advisoryLockHeldBy(Connection watcher, String application) throws SQLException {
        try (Statement statement = watcher.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                     + "WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()"
                     + (application == null ? "" : " AND a.application_name = '" + application + "'"))) {
            row.next();
            return row.getLong(1) > 0;
        }
    }

    /** Two workers on each client: the first two on {@code a}. */
    private static List<DistributedLock> locks(String name, JdbcLockClient a, JdbcLockClient b) {
        return List.of(a.lock(name, LEASE), a.lock(name, LEASE), b.lock(name, LEASE), b.lock(name, LEASE));
    }

    private static List<String> holders() {
        return List.of(PARTITIONED + "-1", PARTITIONED + "-2", "direct-1", "direct-2");
    }

    private HikariDataSource pool(String url, String application) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(server.get().user());
        config.setPassword(server.get().password());
        config.setMaximumPoolSize(6);
        config.setMinimumIdle(2);
        config.setConnectionTimeout(2_000);
        config.addDataSourceProperty("socketTimeout", "2");
        config.addDataSourceProperty("connectTimeout", "2");
        config.addDataSourceProperty("ApplicationName", application);
        return closed(new HikariDataSource(config));
    }

    private static String url(String host, int port) {
        return "jdbc:postgresql://" + host + ":" + port + "/postgres";
    }

    private LeaseEngine lyingEngine() {
        return closed(new LeaseEngine(LeaseEngine.Settings.defaults(), "lying"));
    }

    /** The mutex protocol of a client on {@code dataSource}, built by hand so that {@link LyingRenewals} can wrap it. */
    private JdbcLockProtocol lyingProtocol(DataSource dataSource) throws SQLException {
        LeaseTable table = new LeaseTable(JdbcLocks.DEFAULT_TABLE, new TransactionBounds(LeaseEngine.Settings.DEFAULT_OPERATION_TIMEOUT));
        ReleaseListener listener = new ReleaseListener(dataSource, table, Duration.ofSeconds(1));
        listener.start(Duration.ofSeconds(8));
        closed(listener::close);
        ExecutorService executor = Executors.newFixedThreadPool(4);
        closed(executor::shutdownNow);
        JdbcLockProtocol.Shared shared = new JdbcLockProtocol.Shared(dataSource, table, listener, executor, "lying",
                Duration.ofSeconds(6));
        return new JdbcLockProtocol(shared, LeaseKind.of(LockKind.MUTEX));
    }

    private <T extends AutoCloseable> T closed(T resource) {
        closing.add(resource);
        return resource;
    }
}
