package dev.leasehold.bench;

import javax.sql.DataSource;
import java.sql.Connection;

/** (d) The database's own row lock: {@code SELECT ... FOR UPDATE}, then the write, in one transaction. */
final class ForUpdateStock extends PostgresStock {

    ForUpdateStock(DataSource dataSource) {
        super(dataSource);
    }

    @Override
    public String name() {
        return "SELECT ... FOR UPDATE";
    }

    @Override
    public boolean sell() throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            return StockSql.sellOne(connection, "SELECT units FROM stock WHERE id = 1 FOR UPDATE", unused -> { });
        }
    }
}
