package dev.leasehold.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.launcher.FreePorts;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.launcher.TestSecrets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the PostgreSQL backend adds to the contract: the read-write rule, pooled connections killed, bad input. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcLocksTest {

    private static final String KILLED_POOL = "leasehold-killed-pool";

    @Test
    void readersShareWritersExcludeAndAWaitingWriterKeepsNewReadersOut() throws Exception {
        try (JdbcLockClient a = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient b = JdbcLocks.create(SharedDatabase.pool())) {
            DistributedReadWriteLock onA = a.readWriteLock("rw:shared");
            DistributedReadWriteLock onB = b.readWriteLock("rw:shared");
            Lease reader1 = onA.readLock().acquire(Duration.ofSeconds(5));
            Lease reader2 = onB.readLock().acquire(Duration.ofSeconds(5));
            assertThat(reader2.token()).isGreaterThan(reader1.token());
            assertThat(a.lock("rw:shared").tryAcquire(Duration.ZERO)).as("the mutex sees readers").isEmpty();

            CompletableFuture<Lease> writer = onB.writeLock().acquireAsync(Duration.ofSeconds(10));
            eventually(() -> a.inspect("rw:shared").waiters() >= 1, "the waiting writer registered");
            assertThat(writer).isNotDone();
            assertThat(a.readWriteLock("rw:shared").readLock().tryAcquire(Duration.ZERO))
                    .as("a new reader yields to the waiting writer").isEmpty();

            reader1.release();
            reader2.release();
            Lease written = writer.get(5, TimeUnit.SECONDS);
            assertThat(written.token()).isGreaterThan(reader2.token());
            assertThat(onA.readLock().tryAcquire(Duration.ZERO)).isEmpty();
            written.release();
            try (Lease reader = onA.readLock().acquire(Duration.ofSeconds(5))) {
                assertThat(reader.token()).isGreaterThan(written.token());
            }
        }
    }

    @Test
    void closingTheClientEndsAWaitingWriterAsClosedAndLeavesNoRow() throws Exception {
        try (JdbcLockClient holder = JdbcLocks.create(SharedDatabase.pool())) {
            Lease reader = holder.readWriteLock("rw:close").readLock().acquire(Duration.ofSeconds(5));
            JdbcLockClient closing = JdbcLocks.create(SharedDatabase.pool());
            CompletableFuture<Lease> writer = closing.readWriteLock("rw:close").writeLock().acquireAsync(Duration.ofSeconds(20));
            Thread.sleep(300); // the writer's first attempt is blocked and registers
            assertThat(writer).isNotDone();
            closing.close();
            // The reason is the close, not the database: the attempt the close cancelled must not speak for it.
            assertThatThrownBy(() -> writer.get(5, TimeUnit.SECONDS)).cause()
                    .isNotInstanceOf(LockUnavailableException.class).hasMessageContaining("closed while this acquire waited");
            reader.release();
            try (Lease next = holder.readWriteLock("rw:close").writeLock().acquire(Duration.ZERO)) {
                assertThat(next.token()).as("no waiting-writer row left behind").isGreaterThan(reader.token());
            }
        }
    }

        @Test
    void killedPooledConnectionsCostNoLeaseAndWaitersAreStillWoken() throws Exception {
        PostgresServer server = SharedDatabase.server();
        try (HikariDataSource pool = SharedDatabase.pool(server, 4, KILLED_POOL);
             JdbcLockClient locks = JdbcLocks.create(pool)) {
            Lease lease = locks.lock("killed:held", LockOptions.watchdog(Duration.ofSeconds(1))).acquire(Duration.ofSeconds(5));
            terminateOtherBackends(server);
            Thread.sleep(1_500); // past the ttl: only renewals on fresh connections keep it
            assertThat(lease.isValid()).isTrue();
            try (JdbcLockClient other = JdbcLocks.create(SharedDatabase.pool())) {
                assertThat(other.lock("killed:held").tryAcquire(Duration.ZERO)).as("still held in the table").isEmpty();
                CompletableFuture<Lease> waiter = locks.lock("killed:held").acquireAsync(Duration.ofSeconds(10));
                Thread.sleep(1_200); // the LISTEN connection was killed too: let it come back
                long released = System.nanoTime();
                lease.release();
                waiter.get(5, TimeUnit.SECONDS).release();
                assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
            }
        }
    }

    /** A fault scenario (a server killed and restarted, about 10 s): in the {@code faults} profile. */
    @Test
    @Tag("faults")
    void aDatabaseRestartedMidHoldLosesTheLeaseByItsDeadlineAndGrantsNothingTwice() throws Exception {
        try (PostgresServer server = PostgresServer.start();
             HikariDataSource pool = SharedDatabase.pool(server, 6);
             JdbcLockClient first = JdbcLocks.create(pool)) {
            Lease lease = first.lock("restart:held", LockOptions.watchdog(Duration.ofSeconds(2))).acquire(Duration.ofSeconds(5));
            CompletableFuture<Long> lostAt = lease.lost().toCompletableFuture().thenApply(e -> System.nanoTime());
            long killed = System.nanoTime();
            server.kill();
            long lost = lostAt.get(5, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(lost - killed)).isLessThan(Duration.ofMillis(2_000 + 500));
            server.restart();
            try (JdbcLockClient second = JdbcLocks.create(pool)) {
                Lease next = second.lock("restart:held").acquire(Duration.ofSeconds(10));
                assertThat(next.token()).isGreaterThan(lease.token());
                // The old row lived on in the table until its database-time expiry, after the local deadline.
                assertThat(System.nanoTime()).isGreaterThan(lost);
                next.release();
            }
        }
    }

    @Test
    void anUnreachableDatabaseIsATypedErrorAndLeavesNoThread() {
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setURL("jdbc:postgresql://127.0.0.1:" + FreePorts.find() + "/postgres");
        nowhere.setUser("leasehold");
        TestSecrets.record("secret-password");
        nowhere.setPassword("secret-password");
        assertThatThrownBy(() -> JdbcLocks.create(nowhere))
                .isInstanceOfSatisfying(LockUnavailableException.class,
                        e -> assertThat(e.failures()).extracting(NodeFailure::kind).containsExactly(NodeFailure.Kind.REFUSED))
                .hasMessageContaining("check that the database is running")
                .hasMessageNotContaining("secret-password");
        assertThat(listenerThreads()).isZero();
    }

    /**
     * The LISTEN connection is held for the client's lifetime: a pool of one would lend it the last
     * connection and starve every acquire, so build() refuses it, and leaves nothing open.
     */
    @Test
    void aPoolThatCannotLendTwoConnectionsIsRefusedAtBuildAndLeavesNothingOpen() throws Exception {
        PostgresServer server = SharedDatabase.server();
        long listenersBefore = listenerThreads();
        try (HikariDataSource single = SharedDatabase.pool(server, 1)) {
            assertThatThrownBy(() -> JdbcLocks.builder(single).operationTimeout(Duration.ofSeconds(1)).build())
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.failures())
                            .extracting(NodeFailure::kind).containsExactly(NodeFailure.Kind.TIMED_OUT))
                    .hasMessageContaining("no second connection").hasMessageContaining("at least 2 connections");
            assertThat(single.getHikariPoolMXBean().getActiveConnections()).as("connections handed back").isZero();
            assertThat(listenerThreads()).as("no listener thread left").isEqualTo(listenersBefore);
        }
        try (HikariDataSource two = SharedDatabase.pool(server, 2);
             JdbcLockClient locks = JdbcLocks.builder(two).operationTimeout(Duration.ofSeconds(1)).build();
             Lease lease = locks.lock("pool:two").acquire(Duration.ofSeconds(5))) {
            assertThat(lease.isValid()).as("two connections are enough: one LISTENs, one serves attempts").isTrue();
        }
    }

    @Test
    void aWrongPasswordIsATypedErrorWithoutThePassword() {
        PostgresServer server = SharedDatabase.server();
        PGSimpleDataSource wrong = TestDatabase.dataSource(server);
        wrong.setPassword("wrong-" + server.password());
        assertThatThrownBy(() -> JdbcLocks.create(wrong))
                .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.failures())
                        .extracting(NodeFailure::kind).containsExactly(NodeFailure.Kind.AUTHENTICATION))
                .hasMessageContaining("credentials").hasMessageNotContaining(wrong.getPassword());
    }

    @Test
    void aReadOnlyDatabaseAndATableOfTheWrongShapeAreTypedErrors() throws SQLException {
        PostgresServer server = SharedDatabase.server();
        PGSimpleDataSource readOnly = databaseWith(server, "locks_readonly", "default_transaction_read_only = on");
        assertThatThrownBy(() -> JdbcLocks.create(readOnly)).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("read-only");

        TestDatabase.execute(server, "CREATE TABLE other_leases (name text PRIMARY KEY, owner text)");
        assertThatThrownBy(() -> JdbcLocks.builder(SharedDatabase.pool()).table("other_leases").build())
                .isInstanceOf(JdbcTableException.class).hasMessageContaining("other_leases")
                .hasMessageContaining("expires_at");
        assertThat(listenerThreads()).isZero();
    }

    @Test
    void badArgumentsAreRejected() {
        assertThatThrownBy(() -> JdbcLocks.create(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JdbcLocks.builder(SharedDatabase.pool()).table("leases; DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table");
        assertThatThrownBy(() -> JdbcLocks.builder(SharedDatabase.pool()).threads(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threads");
        assertThatThrownBy(() -> JdbcLocks.builder(SharedDatabase.pool()).operationTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
    }

    /**
     * A 1024-character name may take 3 or 4 UTF-8 bytes a character; PostgreSQL's btree takes at most
     * 2704. And PostgreSQL text cannot hold NUL.
     */
    @Test
    void aNameTooWideForTheIndexOrWithNulIsBadInputAndOneThatFitsWorks() {
        try (JdbcLockClient locks = JdbcLocks.create(SharedDatabase.pool())) {
            assertThatThrownBy(() -> locks.lock("\u7d22".repeat(1024))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("2048 bytes");
            assertThatThrownBy(() -> locks.readWriteLock("\u7d22".repeat(700))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> locks.lock("order\u0000123")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("NUL");
            try (Lease lease = locks.lock("\u7d22".repeat(682)).acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    @Test
    void theTableCanBeNamedAndLeasesUseDatabaseTime() throws Exception {
        try (JdbcLockClient locks = JdbcLocks.builder(SharedDatabase.pool()).table("app_leases").build();
             Lease lease = locks.lock("named:table", LockOptions.fixedLease(Duration.ofSeconds(30))).acquire(Duration.ofSeconds(5))) {
            try (Connection connection = SharedDatabase.pool().getConnection();
                 Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("SELECT token, extract(epoch FROM expires_at - clock_timestamp()) "
                         + "FROM app_leases WHERE name = 'named:table'")) {
                assertThat(row.next()).isTrue();
                assertThat(row.getLong(1)).isEqualTo(lease.token());
                assertThat(row.getDouble(2)).isBetween(25.0, 30.0);
            }
        }
    }

    /** The release channel is derived from the table name; PostgreSQL refuses NOTIFY channels over 63 bytes. */
    @Test
    void aLongSchemaQualifiedTableStillReleasesAndWakes() throws Exception {
        String schema = "leasehold_schema_for_the_orders_service";
        TestDatabase.execute(SharedDatabase.server(), "CREATE SCHEMA IF NOT EXISTS " + schema);
        try (JdbcLockClient locks = JdbcLocks.builder(SharedDatabase.pool()).table(schema + ".leasehold_lease").build()) {
            Lease held = locks.lock("long:channel").acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiter = locks.lock("long:channel").acquireAsync(Duration.ofSeconds(10));
            long released = System.nanoTime();
            held.release();
            waiter.get(5, TimeUnit.SECONDS).release();
            assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken by the notification")
                    .isLessThan(Duration.ofMillis(900));
        }
    }

    @Test
    void aLeaseTableNamedLikeAnSqlKeywordWorks() {
        try (JdbcLockClient locks = JdbcLocks.builder(SharedDatabase.pool()).table("order").build();
             Lease lease = locks.lock("keyword:table").acquire(Duration.ofSeconds(5))) {
            assertThat(locks.lock("keyword:table").tryAcquire(Duration.ZERO)).isEmpty();
            lease.extend(Duration.ofSeconds(30));
        }
    }

    /**
     * A pool whose connections default to REPEATABLE READ: an attempt's snapshot would be taken as it
     * starts waiting for the name's advisory lock, so it could not see the grant it waited behind.
     */
    @Test
    void connectionsDefaultingToRepeatableReadStillGrantOnce() throws Exception {
        PGSimpleDataSource repeatableRead = databaseWith(SharedDatabase.server(), "locks_repeatable_read",
                "default_transaction_isolation = 'repeatable read'");
        try (JdbcLockClient a = JdbcLocks.create(repeatableRead);
             JdbcLockClient b = JdbcLocks.create(repeatableRead);
             Connection blocker = repeatableRead.getConnection();
             Statement statement = blocker.createStatement()) {
            // Both first attempts queue on the name's advisory lock, then run one after the other.
            statement.execute("SELECT pg_advisory_lock(hashtextextended('leasehold_lease:rr:new', 0))");
            CompletableFuture<Lease> onA = a.lock("rr:new").acquireAsync(Duration.ofSeconds(10));
            CompletableFuture<Lease> onB = b.lock("rr:new").acquireAsync(Duration.ofSeconds(10));
            Thread.sleep(500);
            statement.execute("SELECT pg_advisory_unlock(hashtextextended('leasehold_lease:rr:new', 0))");
            Lease first = (Lease) CompletableFuture.anyOf(onA, onB).get(5, TimeUnit.SECONDS);
            Thread.sleep(500);
            assertThat(onA.isDone() && onB.isDone()).as("both granted at once").isFalse();
            first.release();
            (onA.isDone() && onA.join() == first ? onB : onA).get(5, TimeUnit.SECONDS).release();
        }
    }

    /** Every connection of the test's own pool (the LISTEN connection included), not the shared pool's. */
    private static void terminateOtherBackends(PostgresServer server) throws SQLException {
        try (Connection connection = TestDatabase.dataSource(server).getConnection();
             Statement statement = connection.createStatement();
             ResultSet killed = statement.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                     + "WHERE application_name = '" + KILLED_POOL + "'")) {
            killed.next();
            assertThat(killed.getInt(1)).isPositive();
        }
    }

    /** A data source on a new database whose sessions default to {@code setting}. */
    private static PGSimpleDataSource databaseWith(PostgresServer server, String database, String setting)
            throws SQLException {
        TestDatabase.execute(server, "CREATE DATABASE " + database);
        TestDatabase.execute(server, "ALTER DATABASE " + database + " SET " + setting);
        PGSimpleDataSource source = TestDatabase.dataSource(server);
        source.setDatabaseName(database);
        return source;
    }

    private static long listenerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("leasehold-jdbc-listener")).count();
    }
}
