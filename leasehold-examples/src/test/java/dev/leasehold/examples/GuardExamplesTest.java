package dev.leasehold.examples;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.StaleTokenException;
import dev.leasehold.jdbc.JdbcFenceGuard;
import dev.leasehold.redis.RedisFenceGuard;
import dev.leasehold.redis.RedisLocks;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/guards.md: the JDBC guard in a real PostgreSQL transaction, the Redis guard on a real server. */
class GuardExamplesTest {

    private static LockClient locks;
    private static DataSource dataSource;

    @BeforeAll
    static void start() throws SQLException {
        locks = RedisLocks.connect(Servers.redisUri());
        dataSource = Servers.dataSource();
        try (Connection c = dataSource.getConnection(); Statement ddl = c.createStatement()) {
            new JdbcFenceGuard().createTableIfMissing(c);
            ddl.execute("CREATE TABLE IF NOT EXISTS stock (id bigint PRIMARY KEY, units bigint NOT NULL)");
            ddl.execute("INSERT INTO stock VALUES (123, 10) ON CONFLICT DO NOTHING");
        }
    }

    @AfterAll
    static void close() {
        locks.close();
    }

    @Test
    void aJdbcWriteIsAdmittedInTheCallersTransaction() throws SQLException {
        // tag::jdbc-guard[]
        JdbcFenceGuard guard = new JdbcFenceGuard();              // table leasehold_fence; or new JdbcFenceGuard("app.fence")
        try (Lease lease = locks.lock("stock:123").acquire(Duration.ofSeconds(5));
             Connection db = dataSource.getConnection()) {
            db.setAutoCommit(false);                                // admit refuses auto-commit: the check would commit alone
            try {
                guard.admit(db, "stock:123", lease);                // one upsert; refuses a token below one admitted
                long units = units(db, 123);                        // read and write under the admitted token
                setUnits(db, 123, units - 1);
                db.commit();
            } catch (StaleTokenException late) {                    // not an SQL error: the transaction is still usable
                db.rollback();                                      // nothing this holder wrote survives
            }
        }
        // end::jdbc-guard[]
        try (Connection db = dataSource.getConnection()) {
            assertThat(units(db, 123)).isLessThan(10);
            assertThat(guard.highestAdmitted(db, "stock:123")).isPositive();
        }
    }

    private static long units(Connection db, long id) throws SQLException {
        try (PreparedStatement select = db.prepareStatement("SELECT units FROM stock WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static void setUnits(Connection db, long id, long units) throws SQLException {
        try (PreparedStatement update = db.prepareStatement("UPDATE stock SET units = ? WHERE id = ?")) {
            update.setLong(1, units);
            update.setLong(2, id);
            update.executeUpdate();
        }
    }

    @Test
    void aRedisWriteIsCheckedAndDoneInOneScript() {
        RedisClient client = RedisClient.create(Servers.redisUri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            // tag::redis-guard[]
            RedisFenceGuard guard = RedisFenceGuard.using(connection);    // a Lettuce StatefulRedisConnection<String, String>
            try (Lease lease = locks.lock("stock:42").acquire(Duration.ofSeconds(5))) {
                guard.set("stock:42:owner", "alice", lease);          // data keys, never the lock's own name
                guard.hset("stock:42:meta", "updated-by", "alice", lease);
                long left = guard.incrBy("stock:42:units", -1, lease);
                guard.del("stock:42:reservation", lease);
            }
            // end::redis-guard[]
            assertThat(connection.sync().get("stock:42:units")).isEqualTo("-1");
            assertThat(connection.sync().get("stock:42:owner")).isEqualTo("alice");
        } finally {
            client.shutdown();
        }
    }
}
