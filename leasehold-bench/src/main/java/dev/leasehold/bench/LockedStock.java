package dev.leasehold.bench;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.jdbc.JdbcFenceGuard;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;

/**
 * (a) A Leasehold lock (Redis) around a read-modify-write of the PostgreSQL row, with the lease's
 * token admitted by {@link JdbcFenceGuard} in the same transaction: the pattern README's first example teaches.
 */
final class LockedStock extends PostgresStock {

    private final LockClient locks;
    private final DistributedLock lock;
    private final JdbcFenceGuard guard = new JdbcFenceGuard();

    LockedStock(LockClient locks, DataSource dataSource) throws Exception {
        super(dataSource);
        this.locks = locks;
        this.lock = locks.lock("bench:stock:1");
        try (Connection connection = dataSource.getConnection()) {
            guard.createTableIfMissing(connection);
        }
    }

    @Override
    public String name() {
        return "Leasehold lock + guarded read-modify-write";
    }

    @Override
    public boolean sell() throws Exception {
        try (Lease lease = lock.acquire(Duration.ofSeconds(30)); Connection connection = dataSource.getConnection()) {
            return StockSql.sellOne(connection, "SELECT units FROM stock WHERE id = 1",
                    inTransaction -> guard.admit(inTransaction, "stock:1", lease.token()));
        }
    }

    @Override
    public void close() {
        locks.close();
    }
}
