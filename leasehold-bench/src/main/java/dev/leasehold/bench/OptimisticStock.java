package dev.leasehold.bench;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.atomic.AtomicLong;

/** (c) No lock: read the count and its version, write only if the version did not change, else retry. */
final class OptimisticStock extends PostgresStock {

    private final AtomicLong retries = new AtomicLong();

    OptimisticStock(DataSource dataSource) {
        super(dataSource);
    }

    @Override
    public String name() {
        return "optimistic version column + retry";
    }

    @Override
    public void reset(long units) throws Exception {
        super.reset(units);
        retries.set(0);
    }

    @Override
    public boolean sell() throws Exception {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement read = connection.prepareStatement("SELECT units, version FROM stock WHERE id = 1");
             PreparedStatement write = connection.prepareStatement(
                     "UPDATE stock SET units = units - 1, version = version + 1 WHERE id = 1 AND version = ?")) {
            while (true) {
                long units;
                long version;
                try (ResultSet row = read.executeQuery()) {
                    row.next();
                    units = row.getLong(1);
                    version = row.getLong(2);
                }
                if (units <= 0) {
                    return false;
                }
                write.setLong(1, version);
                if (write.executeUpdate() == 1) {
                    return true;
                }
                retries.incrementAndGet();
            }
        }
    }

    @Override
    public long retries() {
        return retries.get();
    }
}
