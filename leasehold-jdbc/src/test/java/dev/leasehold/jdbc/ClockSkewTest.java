package dev.leasehold.jdbc;

import dev.leasehold.launcher.LibFaketime;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients whose wall clocks are 10 minutes ahead of and 10 minutes behind this JVM's (child JVMs
 * under libfaketime, {@link SkewedClient}) share locks with an unskewed client on one database:
 * since a lease's expiry is database time, a fixed lease of any of them holds the others off for
 * its ttl and not longer, and mutual exclusion holds across the three clocks. Were expiry taken
 * from a client's clock, the lease of the client ahead would last ten minutes and that of the
 * client behind none. Runs in the {@code faults} profile (two JVMs to start, leases to outwait:
 * about 30 s on an idle machine).
 */
@Tag("faults")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClockSkewTest {

    private static final Duration TTL = Duration.ofSeconds(3);
    /** Above the ttl, what a loaded machine may add: a missed notification costs a re-check (1 s). */
    private static final Duration SLACK = Duration.ofSeconds(5);
    private static final Duration ANSWER = Duration.ofSeconds(60);
    private static final long SKEW_MILLIS = TimeUnit.MINUTES.toMillis(10);

    private static SkewedClient ahead;
    private static SkewedClient behind;
    private static JdbcLockClient local;

    @BeforeAll
    static void start() throws Exception {
        assertThat(LibFaketime.LIBRARY).as("libfaketime (Debian package libfaketime, which .ci/run installs): this test runs everywhere, never skips").exists();
        TestDatabase.execute(SharedDatabase.server(), "CREATE TABLE IF NOT EXISTS " + SkewedClientMain.COUNTER_TABLE
                + " (id int PRIMARY KEY, value bigint NOT NULL)");
        local = JdbcLocks.create(SharedDatabase.pool());
        ahead = SkewedClient.start(SharedDatabase.server(), "+10m");
        behind = SkewedClient.start(SharedDatabase.server(), "-10m");
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable closeable : new AutoCloseable[] {ahead, behind, local}) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception e) {
                // the others must still close
            }
        }
    }

    @Test
    void theChildClocksAreSkewedByTenMinutes() {
        assertThat(clockOffset(ahead)).isBetween(SKEW_MILLIS - 60_000, SKEW_MILLIS + 60_000);
        assertThat(clockOffset(behind)).isBetween(-SKEW_MILLIS - 60_000, -SKEW_MILLIS + 60_000);
    }

    @Test
    void aFixedLeaseOfTheClientAheadHoldsTheOthersOffForItsTtlAndNoLonger() {
        fixedLeaseOfASkewedClient(ahead, behind, "skew:ahead");
    }

    @Test
    void aFixedLeaseOfTheClientBehindHoldsTheOthersOffForItsTtlAndNoLonger() {
        fixedLeaseOfASkewedClient(behind, ahead, "skew:behind");
    }

    @Test
    void aFixedLeaseOfTheUnskewedClientHoldsBothSkewedClientsOffForItsTtlAndNoLonger() {
        long sent = System.nanoTime();
        Lease lease = local.lock("skew:local", LockOptions.fixedLease(TTL)).acquire(ANSWER);
        long granted = System.nanoTime();
        assertThat(ahead.ask("try skew:local 0", ANSWER)).isEqualTo("busy");
        assertThat(behind.ask("try skew:local 0", ANSWER)).isEqualTo("busy");
        String answer = ahead.ask("try skew:local " + TTL.plus(SLACK).plus(SLACK).toMillis(), ANSWER);
        long acquired = System.nanoTime();
        assertThat(answer).startsWith("acquired ");
        assertThat(Long.parseLong(answer.substring("acquired ".length()))).isGreaterThan(lease.token());
        assertHeldForTtlAndNoLonger(sent, granted, acquired);
    }

    @Test
    void mutualExclusionHoldsAcrossTheThreeClocks() throws Exception {
        int rounds = 15;
        TestDatabase.execute(SharedDatabase.server(), "INSERT INTO " + SkewedClientMain.COUNTER_TABLE
                + " VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET value = 0");
        ahead.send("count skew:counter " + rounds);
        behind.send("count skew:counter " + rounds);
        for (int i = 0; i < rounds; i++) {
            try (Lease lease = local.lock("skew:counter").acquire(Duration.ofSeconds(60))) {
                SkewedClientMain.increment(SharedDatabase.pool());
            }
        }
        assertThat(ahead.readAnswer(Duration.ofSeconds(90))).isEqualTo("counted " + rounds);
        assertThat(behind.readAnswer(Duration.ofSeconds(90))).isEqualTo("counted " + rounds);
        try (Connection connection = SharedDatabase.pool().getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT value FROM " + SkewedClientMain.COUNTER_TABLE + " WHERE id = 1")) {
            row.next();
            assertThat(row.getLong(1)).as("increments under the lock, none lost").isEqualTo(3L * rounds);
        }
    }

    /**
     * {@code holder} takes a fixed lease of {@link #TTL}; the other skewed client and the unskewed
     * one are refused at once, and the unskewed one, waiting, gets the lock after the ttl and
     * within the slack.
     */
    private static void fixedLeaseOfASkewedClient(SkewedClient holder, SkewedClient other, String name) {
        long sent = System.nanoTime();
        String held = holder.ask("hold " + name + " " + TTL.toMillis(), ANSWER);
        long granted = System.nanoTime();
        assertThat(held).startsWith("held ");
        assertThat(local.lock(name).tryAcquire(Duration.ZERO)).as("the unskewed client at once").isEmpty();
        assertThat(other.ask("try " + name + " 0", ANSWER)).as("the other skewed client at once").isEqualTo("busy");
        Optional<Lease> lease = local.lock(name).tryAcquire(TTL.plus(SLACK).plus(SLACK));
        long acquired = System.nanoTime();
        assertThat(lease).as("the unskewed client, waiting past the ttl").isPresent();
        assertThat(lease.get().token()).isGreaterThan(Long.parseLong(held.substring("held ".length())));
        lease.get().release();
        assertHeldForTtlAndNoLonger(sent, granted, acquired);
    }

    /**
     * The lease was granted between {@code sent} and {@code granted} and expired on the database
     * {@link #TTL} later; the waiter got it at {@code acquired}: not before the ttl (less 100 ms for
     * two clocks' granularity), and at most {@link #SLACK} after it.
     */
    private static void assertHeldForTtlAndNoLonger(long sent, long granted, long acquired) {
        assertThat(Duration.ofNanos(acquired - sent)).as("held off at least the ttl")
                .isGreaterThanOrEqualTo(TTL.minusMillis(100));
        assertThat(Duration.ofNanos(acquired - granted)).as("held off no longer than the ttl and the slack")
                .isLessThanOrEqualTo(TTL.plus(SLACK));
    }

    /** The client's wall clock minus this JVM's, halfway through the round trip. */
    private static long clockOffset(SkewedClient client) {
        long before = System.currentTimeMillis();
        String answer = client.ask("clock", ANSWER);
        long after = System.currentTimeMillis();
        return Long.parseLong(answer.substring("clock ".length())) - (before + after) / 2;
    }
}
