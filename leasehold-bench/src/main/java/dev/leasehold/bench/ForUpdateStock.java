package dev.leasehold.bench;

import javax.sql.DataSource;
import java.sql.Connection;

/** (d) The database's own row lock: {@code SELECT ... FOR UPDATE}, then the write, in one transaction. */
final class ForUpdateStock implements StockStrategy {

    private final DataSource dataSource;

    ForUpdateStock(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public String name() {
        return "SELECT ... FOR UPDATE";
    }

    @Override
    public void reset(long units) throws Exception {
        StockSql.reset(dataSource, units);
    }

    @Override
    public boolean sell() throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            return StockSql.sellOne(connection, "SELECT units FROM stock WHERE id = 1 FOR UPDATE", unused -> { });
        }
    }

    @Override
    public long left() throws Exception {
        return StockSql.left(dataSource);
    }

    @Override
    public void close() {
    }
}
