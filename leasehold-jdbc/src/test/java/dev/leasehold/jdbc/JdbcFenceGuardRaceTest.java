package dev.leasehold.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.StaleTokenException;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Verdict;
import dev.leasehold.testkit.history.Write;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writers racing with tokens handed out of order, 32 threads, each write a real read-modify-write
 * transaction through a HikariCP pool: with the guard the store never accepts a lower token after a
 * higher one and loses no update; without it, updates are lost.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcFenceGuardRaceTest {

    private static final int THREADS = 32;
    private static final int TOKENS = 1_200;

    private static final JdbcFenceGuard GUARD = new JdbcFenceGuard("race_fence");

    private static PostgresServer server;
    private static HikariDataSource pool;

    @BeforeAll
    static void start() throws SQLException {
        server = SharedDatabase.server();
        pool = SharedDatabase.pool(server, THREADS);
        TestDatabase.execute(server, "CREATE TABLE counter (id int PRIMARY KEY, value bigint NOT NULL);"
                + "CREATE TABLE counter_log (seq bigserial PRIMARY KEY, token bigint NOT NULL)");
        try (Connection connection = pool.getConnection()) {
            GUARD.createTableIfMissing(connection);
        }
    }

    @AfterAll
    static void stop() {
        if (pool != null) {
            pool.close();
        }
    }

    @Test
    void racingWritersWithTokensOutOfOrderNeverCommitALowerTokenAfterAHigherOne() throws Exception {
        reset(1);
        JdbcFenceGuard guard = GUARD;
        History history = new History();
        race(token -> {
            try (Connection connection = pool.getConnection()) {
                connection.setAutoCommit(false);
                try {
                    guard.admit(connection, "counter:1", token);
                } catch (StaleTokenException refused) {
                    connection.rollback();
                    history.write(new Write("writer", token, false, 0, 0));
                    return;
                }
                long before = readCounter(connection, 1);
                Thread.yield();
                writeCounter(connection, 1, before + 1, token);
                // The fence row stays locked until commit, so this order is the admission order.
                history.write(new Write("writer", token, true, before, before + 1));
                connection.commit();
            }
        });

        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.staleWritesAdmitted()).as(verdict.toString()).isZero();
        assertThat(verdict.lostUpdates()).as(verdict.toString()).isZero();
        assertThat(verdict.refusedWrites()).as("the race produced stale tokens to refuse").isPositive();
        assertThat(verdict.admittedWrites()).isGreaterThan(1);

        List<Long> committed = committedTokens();
        assertThat(committed).as("tokens in commit order").isSorted().doesNotHaveDuplicates();
        assertThat(committed).hasSize(verdict.admittedWrites());
        try (Connection connection = pool.getConnection()) {
            assertThat(readCounter(connection, 1)).isEqualTo(verdict.admittedWrites());
            assertThat(guard.highestAdmitted(connection, "counter:1")).isEqualTo(committed.get(committed.size() - 1));
        }
    }

    @Test
    void withoutTheGuardTheSameRaceLosesUpdates() throws Exception {
        reset(2);
        List<Long> written = Collections.synchronizedList(new ArrayList<>());
        race(token -> {
            try (Connection connection = pool.getConnection()) {
                connection.setAutoCommit(false);
                long before = readCounter(connection, 2);
                Thread.yield();
                writeCounter(connection, 2, before + 1, token);
                connection.commit();
                written.add(token);
            }
        });
        try (Connection connection = pool.getConnection()) {
            assertThat(readCounter(connection, 2)).as("lost updates").isLessThan(written.size());
        }
        assertThat(committedTokens()).as("stale tokens committed after higher ones").isNotEqualTo(
                committedTokens().stream().sorted().toList());
    }

    private interface TokenWrite {
        void write(long token) throws SQLException;
    }

    /** Every token once, shuffled, taken by 32 threads started together. */
    private static void race(TokenWrite write) throws Exception {
        List<Long> tokens = new ArrayList<>(LongStream.rangeClosed(1, TOKENS).boxed().toList());
        Collections.shuffle(tokens);
        ConcurrentLinkedQueue<Long> queue = new ConcurrentLinkedQueue<>(tokens);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                done.add(threads.submit(() -> {
                    start.await();
                    for (Long token = queue.poll(); token != null; token = queue.poll()) {
                        write.write(token);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(50, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static void reset(int id) throws SQLException {
        TestDatabase.execute(server, "TRUNCATE counter_log; DELETE FROM counter; DELETE FROM race_fence; "
                + "INSERT INTO counter VALUES (" + id + ", 0)");
    }

    private static long readCounter(Connection connection, int id) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT value FROM counter WHERE id = ?")) {
            select.setInt(1, id);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static void writeCounter(Connection connection, int id, long value, long token) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE counter SET value = ? WHERE id = ?");
             PreparedStatement log = connection.prepareStatement("INSERT INTO counter_log (token) VALUES (?)")) {
            update.setLong(1, value);
            update.setInt(2, id);
            update.executeUpdate();
            log.setLong(1, token);
            log.executeUpdate();
        }
    }

    private static List<Long> committedTokens() throws SQLException {
        List<Long> tokens = new ArrayList<>();
        try (Connection connection = pool.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT token FROM counter_log ORDER BY seq");
             ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                tokens.add(rows.getLong(1));
            }
        }
        return tokens;
    }
}
