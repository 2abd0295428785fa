package dev.leasehold.examples;

// tag::quickstart[]
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.StaleTokenException;
import dev.leasehold.jdbc.JdbcFenceGuard;
import dev.leasehold.redis.RedisLocks;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;

/** Ships order 123 under a Redis lock; PostgreSQL refuses the write of a holder whose lease ran out. */
public class Quickstart {
    public static void main(String[] args) throws Exception {
        String redis = args.length > 0 ? args[0] : "redis://localhost:6379";
        PGSimpleDataSource db = new PGSimpleDataSource();
        db.setUrl(args.length > 1 ? args[1] : "jdbc:postgresql://localhost:5432/postgres");
        db.setUser(args.length > 2 ? args[2] : "postgres");
        db.setPassword(args.length > 3 ? args[3] : "postgres");
        JdbcFenceGuard guard = new JdbcFenceGuard();                  // fence table leasehold_fence
        try (Connection c = db.getConnection(); Statement ddl = c.createStatement()) {
            guard.createTableIfMissing(c);
            ddl.execute("CREATE TABLE IF NOT EXISTS orders (id bigint PRIMARY KEY, state text NOT NULL)");
            ddl.execute("INSERT INTO orders VALUES (123, 'new') ON CONFLICT DO NOTHING");
        }
        try (LockClient locks = RedisLocks.connect(redis);
             Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5)); // or LockTimeoutException
             Connection c = db.getConnection()) {
            c.setAutoCommit(false);                                   // the check and the write commit together
            try (PreparedStatement ship = c.prepareStatement("UPDATE orders SET state = 'shipped' WHERE id = 123")) {
                guard.admit(c, "order:123", lease);                   // refuses a token below one already admitted
                ship.executeUpdate();
                c.commit();
                System.out.println("order 123 shipped under fencing token " + lease.token());
            } catch (StaleTokenException late) {                      // a newer holder wrote first
                c.rollback();
            }
        }                                                             // releases the lock, closes the client
    }
}
// end::quickstart[]
