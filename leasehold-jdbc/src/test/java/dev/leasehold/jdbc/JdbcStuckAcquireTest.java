package dev.leasehold.jdbc;

import dev.leasehold.Lease;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.testkit.fault.FaultProxy;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A client frozen or cut off in the middle of its acquire holds the name's advisory lock only as
 * long as the database lets a transaction sit idle (issue 19, defect 3): before, the lock stayed
 * until TCP keepalive noticed, and every other acquire failed with "check that the database is
 * running". The frozen client is real, behind a {@link FaultProxy} with 200 ms of latency each
 * way: as soon as the server shows the advisory lock taken, the proxy holds every reply, so the
 * client waits for an answer that never comes while its server session sits idle in transaction.
 */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcStuckAcquireTest {

    /** The engine's default operation timeout, 3 s: the idle bound is 1 s, the lock wait bound 2 s. */
    private static final TransactionBounds BOUNDS = new TransactionBounds(Duration.ofSeconds(3));

    @Test
    void aClientFrozenMidAcquireKeepsTheNameOnlyUntilTheIdleBound() throws Exception {
        PostgresServer server = SharedDatabase.server();
        String name = "stuck:frozen:" + System.nanoTime();
        try (FaultProxy proxy = FaultProxy.start(server.host(), server.port());
             JdbcLockClient frozen = JdbcLocks.create(throughProxy(server, proxy));
             JdbcLockClient other = JdbcLocks.create(SharedDatabase.pool())) {
            proxy.latency(Duration.ofMillis(200));
            CompletableFuture<Lease> stuck = frozen.lock(name).acquireAsync(Duration.ofSeconds(10));
            awaitAdvisoryLockHeld();
            proxy.holdReplies(); // the reply to the advisory lock is still on its way: held too
            long start = System.nanoTime();
            try (Lease lease = other.lock(name).acquire(Duration.ofSeconds(10))) {
                long tookMillis = (System.nanoTime() - start) / 1_000_000;
                System.out.printf("A second client got the lock %d ms after the first froze mid-acquire "
                        + "(idle bound %d ms)%n", tookMillis, BOUNDS.idleMillis());
                assertThat(lease.isValid()).isTrue();
                assertThat(tookMillis).as("the frozen client's transaction ended by the idle bound")
                        .isLessThan(BOUNDS.idleMillis() + BOUNDS.lockMillis());
            }
            assertThat(stuck.cancel(true) || stuck.isCompletedExceptionally())
                    .as("the frozen client got no lease").isTrue();
            proxy.cutAll(); // its thread waits on a socket without timeout: let the client close at once
        }
    }

    @Test
    void anAttemptBlockedPastTheLockBoundSaysAnotherClientIsStuckMidAcquire() throws Exception {
        String name = "stuck:message:" + System.nanoTime();
        try (JdbcLockClient client = JdbcLocks.create(SharedDatabase.pool());
             Connection other = TestDatabase.dataSource(SharedDatabase.server()).getConnection()) {
            try (PreparedStatement lock = other.prepareStatement("SELECT pg_advisory_lock(hashtextextended(?, 0))")) {
                lock.setString(1, JdbcLocks.DEFAULT_TABLE + ":" + name);
                lock.execute();
            }
            assertThatThrownBy(() -> client.lock(name).acquire(Duration.ofSeconds(10)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("another client is stuck in the middle of its acquire")
                    .hasMessageNotContaining("check that the");
        }
    }

    /** The client a crashed host would be: no socket timeout, its replies held by the proxy. */
    private static PGSimpleDataSource throughProxy(PostgresServer server, FaultProxy proxy) {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL("jdbc:postgresql://" + proxy.host() + ":" + proxy.port() + "/postgres");
        source.setUser(server.user());
        source.setPassword(server.password());
        source.setConnectTimeout(5);
        return source;
    }

    private static void awaitAdvisoryLockHeld() throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try (Connection connection = TestDatabase.dataSource(SharedDatabase.server()).getConnection();
             PreparedStatement held = connection.prepareStatement(
                     "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")) {
            while (System.nanoTime() < deadline) {
                try (ResultSet row = held.executeQuery()) {
                    row.next();
                    if (row.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(10);
            }
        }
        throw new AssertionError("the frozen client never took the advisory lock");
    }
}
