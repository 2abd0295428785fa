package dev.leasehold.jdbc;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.PgBouncer;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.fault.LateGrant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A lease-table transaction whose COMMIT the database carried out but whose answer the client never
 * got: the connection is reset between the commit and its reply (a {@link FaultProxy} holds the
 * replies while the commit runs, then cuts every connection). pgjdbc reports a broken connection,
 * and the client tries the call again on a new one, which finds the first attempt's work done. Each
 * case runs with the proxy in front of the database and in front of a transaction-pooling PgBouncer.
 *
 * <p>The commit is held open on the server by a deferred constraint trigger of this test's own table
 * that waits for an advisory lock the test holds: the test sees the COMMIT waiting, holds the
 * replies, lets the commit go, and cuts the connection once its effect is visible.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcLostCommitAnswerTest {

    /** The advisory lock key the gate trigger waits for. */
    private static final long GATE = 7_331_001L;
    /** Long enough that the transaction bounds (lock wait 2/3 of it) never end the held commit first. */
    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(15);

    /** What the client under test reaches through the proxy. */
    enum Route {
        DATABASE, PGBOUNCER
    }

    private static PgBouncer bouncer;

    private final String table = "lost_answer_" + Long.toHexString(System.nanoTime());
    private final List<AutoCloseable> opened = new ArrayList<>();
    private FaultProxy proxy;
    private JdbcLockClient cut;
    private JdbcLockClient direct;
    private Connection gate;

    @AfterAll
    static void stopBouncer() {
        if (bouncer != null) {
            bouncer.close();
        }
    }

    /** A client behind a proxy to the database (or to a transaction-pooling PgBouncer in front of it), and one straight to it. */
    private void start(Route route) throws SQLException {
        String host = SharedDatabase.server().host();
        int port = SharedDatabase.server().port();
        if (route == Route.PGBOUNCER) {
            if (bouncer == null) {
                bouncer = PgBouncer.start(SharedDatabase.server());
            }
            host = bouncer.host();
            port = bouncer.port();
        }
        proxy = open(FaultProxy.start(host, port));
        PGSimpleDataSource behindProxy = new PGSimpleDataSource();
        behindProxy.setURL("jdbc:postgresql://" + proxy.host() + ":" + proxy.port() + "/postgres?prepareThreshold=0");
        behindProxy.setUser(SharedDatabase.server().user());
        behindProxy.setPassword(SharedDatabase.server().password());
        behindProxy.setConnectTimeout(5);
        behindProxy.setSocketTimeout(10);
        cut = open(JdbcLocks.builder(behindProxy).table(table).operationTimeout(OPERATION_TIMEOUT).build());
        direct = open(JdbcLocks.builder(SharedDatabase.pool()).table(table).build());
        gate = open(TestDatabase.dataSource(SharedDatabase.server()).getConnection());
    }

    private <T extends AutoCloseable> T open(T closeable) {
        opened.add(0, closeable);
        return closeable;
    }

    @AfterEach
    void stop() throws Exception {
        try {
            for (AutoCloseable closeable : opened) {
                closeable.close();
            }
        } finally {
            TestDatabase.execute(SharedDatabase.server(), "DROP TABLE IF EXISTS " + table + ", " + table + "_leader, "
                    + table + "_break, " + table + "_fence; DROP SEQUENCE IF EXISTS " + table + "_token; "
                    + "DROP FUNCTION IF EXISTS " + table + "_gate()");
        }
    }

    /**
     * Failed before: the retried DELETE found no row (the first one's commit had removed it) and the
     * release reported ALREADY_LOST, with the lease-lost event and warning, for a lease held to the end.
     */
    @ParameterizedTest
    @EnumSource(Route.class)
    void aReleaseWhoseCommitAnswerIsLostIsAReleaseNotALoss(Route route) throws Exception {
        start(route);
        String name = "release";
        Lease lease = cut.lock(name, LockOptions.watchdog(Duration.ofSeconds(30))).acquire(Duration.ofSeconds(5));
        gateCommitsOf("DELETE");
        CompletableFuture<ReleaseStatus> release = lease.releaseAsync();
        holdTheAnswerOfTheGatedCommit(() -> rows(name) == 0);
        cutAndHeal();

        assertThat(release.get(OPERATION_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS))
                .as("the release committed; only its answer was lost").isEqualTo(ReleaseStatus.RELEASED);
        assertThat(lease.lost().toCompletableFuture().isDone()).as("lost() of a lease released while held").isFalse();
        Optional<Lease> next = direct.lock(name).tryAcquire(Duration.ZERO);
        assertThat(next).as("the lock is free").isPresent();
        assertThat(next.get().token()).isGreaterThan(lease.token());
        next.get().release();
    }

    /**
     * The retried acquire finds the lease row its first attempt committed and is granted with that
     * row's token: one lease, held (another client is refused), and freed by its release.
     */
    @ParameterizedTest
    @EnumSource(Route.class)
    void anAcquireWhoseCommitAnswerIsLostIsGrantedOnceWithItsRowsToken(Route route) throws Exception {
        start(route);
        String name = "acquire";
        GatedAcquire gated = acquireWithItsCommitAnswerHeld(name);
        cutAndHeal();

        Lease lease = gated.acquire().get(OPERATION_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
        assertThat(rows(name)).as("one row: the retry kept the first attempt's").isEqualTo(1);
        assertThat(lease.token()).as("the token of the row the first attempt committed").isEqualTo(gated.committedToken())
                .isEqualTo(tokenOf(name));
        assertThat(direct.lock(name).tryAcquire(Duration.ZERO)).as("held by the lease").isEmpty();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        Optional<Lease> next = direct.lock(name).tryAcquire(Duration.ZERO);
        assertThat(next).as("freed by the release").isPresent();
        next.get().release();
    }

    /**
     * An acquire called off while its granting commit is on the server, whose answer is then lost:
     * the caller is told it failed, and the row its attempt committed is deleted (the abandon follows
     * the attempt's end), so another client takes the lock long before the row's 30 s ttl.
     */
    @ParameterizedTest
    @EnumSource(Route.class)
    void anAcquireCancelledWhileItsCommitAnswerIsLostLeavesTheLockFree(Route route) throws Exception {
        start(route);
        String name = "cancelled";
        GatedAcquire gated = acquireWithItsCommitAnswerHeld(name);
        assertThat(gated.acquire().cancel(true)).isTrue();
        cutAndHeal();

        assertThatThrownBy(() -> gated.acquire().get(1, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
        Optional<Lease> next = direct.lock(name).tryAcquire(Duration.ofSeconds(5));
        assertThat(next).as("the cancelled acquire's committed row deleted").isPresent();
        assertThat(next.get().token()).isGreaterThan(gated.committedToken());
        next.get().release();
    }

    /**
     * An acquire whose granting commit is held on the server past the lease's ttl (a paused network
     * or a stalled client), during which a rival is granted the lock once that commit let go, and
     * whose answer arrives only then: the lease it brings, if any, is already lost (invalid, lost()
     * complete, refused by the guard's lease check), and its release leaves the rival's lease alone.
     */
    @ParameterizedTest
    @EnumSource(Route.class)
    void aGrantAnsweredAfterItsTtlWhileARivalHoldsIsNeverValid(Route route) throws Exception {
        start(route);
        LateGrant.isNeverValidWhileTheRivalHolds(this::grantedAfterItsTtlWhileARivalHolds, "late", direct, stale -> {
            try (Connection connection = TestDatabase.dataSource(SharedDatabase.server()).getConnection()) {
                new JdbcFenceGuard(table + "_fence").admit(connection, "r", stale);
            }
        });
    }

    /**
     * Work handed a lease whose grant was answered after its ttl, while a rival held the lock, never
     * runs: {@code call} and {@code callAsync} end with {@link LeaseLostException} (or the acquire's
     * failure) without calling it, as {@link Lease#call} refuses a lost lease.
     */
    @ParameterizedTest
    @EnumSource(Route.class)
    void workGivenAGrantAnsweredAfterItsTtlNeverRuns(Route route) throws Exception {
        start(route);
        LateGrant.workNeverRuns(this::grantedAfterItsTtlWhileARivalHolds, "late");
    }

    /**
     * Starts {@code acquiring} on a lock of {@code name} with a 1 s ttl, holds its granting commit at
     * the gate and its answer at the proxy until 1.5 s after that commit reached the gate (past the
     * attempt's local deadline: it was sent before), lets a rival take the lock once the commit let go
     * (its row has expired), then lets the answer through.
     *
     * @return the rival's lease
     */
    private Lease grantedAfterItsTtlWhileARivalHolds(String name, Consumer<DistributedLock> acquiring) throws Exception {
        gateCommitsOf("INSERT");
        acquiring.accept(cut.lock(name, LockOptions.watchdog(Duration.ofSeconds(1))));
        eventually(this::aCommitWaitsAtTheGate, "a COMMIT waiting at the gate");
        proxy.holdReplies();
        Thread.sleep(1_500);
        openTheGate();
        Lease rival = direct.lock(name).acquire(Duration.ofSeconds(5));
        proxy.releaseReplies();
        return rival;
    }

    /** An acquire whose granting commit went through, its answer held by the proxy, and that commit's token. */
    private record GatedAcquire(CompletableFuture<Lease> acquire, long committedToken) {
    }

    private GatedAcquire acquireWithItsCommitAnswerHeld(String name) throws SQLException {
        gateCommitsOf("INSERT");
        CompletableFuture<Lease> acquire = cut.lock(name, LockOptions.watchdog(Duration.ofSeconds(30)))
                .acquireAsync(Duration.ofSeconds(10));
        holdTheAnswerOfTheGatedCommit(() -> rows(name) == 1);
        return new GatedAcquire(acquire, tokenOf(name));
    }

    /**
     * Holds {@link #GATE} and adds a deferred trigger that waits for it at the commit of any
     * transaction that ran {@code event} (INSERT or DELETE) on the table.
     */
    private void gateCommitsOf(String event) throws SQLException {
        try (Statement statement = gate.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(" + GATE + ")");
            statement.execute("CREATE OR REPLACE FUNCTION " + table + "_gate() RETURNS trigger LANGUAGE plpgsql AS "
                    + "$$ BEGIN PERFORM pg_advisory_xact_lock(" + GATE + "); RETURN NULL; END $$");
            statement.execute("CREATE CONSTRAINT TRIGGER " + table + "_gate AFTER " + event + " ON " + table
                    + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION " + table + "_gate()");
        }
    }

    /** Waits for a COMMIT held by the gate, holds the proxy's replies, lets the commit go, and waits until {@code committed}. */
    private void holdTheAnswerOfTheGatedCommit(BooleanSupplier committed) throws SQLException {
        eventually(this::aCommitWaitsAtTheGate, "a COMMIT waiting at the gate");
        proxy.holdReplies();
        openTheGate();
        eventually(committed, "the held commit's effect visible");
    }

    /** Lets the held commit go and drops the gate, so no later commit waits. */
    private void openTheGate() throws SQLException {
        try (Statement statement = gate.createStatement()) {
            statement.execute("SELECT pg_advisory_unlock(" + GATE + ")");
            statement.execute("DROP TRIGGER " + table + "_gate ON " + table);
        }
    }

    /** Resets every connection through the proxy (the held answers die with them) and lets new ones pass. */
    private void cutAndHeal() {
        proxy.cutAll();
        proxy.pass();
    }

    private boolean aCommitWaitsAtTheGate() {
        try (Connection connection = TestDatabase.dataSource(SharedDatabase.server()).getConnection();
             PreparedStatement waiting = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE wait_event = 'advisory' AND query = 'COMMIT'");
             ResultSet row = waiting.executeQuery()) {
            row.next();
            return row.getLong(1) > 0;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private long rows(String name) {
        try (Connection connection = TestDatabase.dataSource(SharedDatabase.server()).getConnection();
             PreparedStatement count = connection.prepareStatement("SELECT count(*) FROM " + table + " WHERE name = ?")) {
            count.setString(1, name);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private long tokenOf(String name) throws SQLException {
        try (Connection connection = TestDatabase.dataSource(SharedDatabase.server()).getConnection();
             PreparedStatement token = connection.prepareStatement("SELECT token FROM " + table + " WHERE name = ?")) {
            token.setString(1, name);
            try (ResultSet row = token.executeQuery()) {
                assertThat(row.next()).as("a row of '%s'", name).isTrue();
                return row.getLong(1);
            }
        }
    }
}
