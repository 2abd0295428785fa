package dev.leasehold.bench;

import javax.sql.DataSource;

/**
 * A strategy whose stock is the PostgreSQL row of {@link StockSql}: set and read the same way
 * whatever the strategy does to sell a unit of it.
 */
abstract class PostgresStock implements StockStrategy {

    /** The database of the stock table; each call takes a connection of its own. */
    protected final DataSource dataSource;

    PostgresStock(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void reset(long units) throws Exception {
        StockSql.reset(dataSource, units);
    }

    @Override
    public long left() throws Exception {
        return StockSql.left(dataSource);
    }

    /** Nothing to close: the pool belongs to the caller. */
    @Override
    public void close() {
    }
}
