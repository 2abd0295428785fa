package dev.leasehold.bench;

/**
 * One way to sell a unit of stock under contention. {@link #sell()} is called by many threads at
 * once; it must never sell more units than exist.
 */
interface StockStrategy extends AutoCloseable {

    /** A short name for the report. */
    String name();

    /** Sets the stock to {@code units}. */
    void reset(long units) throws Exception;

    /** Sells one unit; false if none was left. May retry internally (counted in {@link #retries()}). */
    boolean sell() throws Exception;

    /** The stock left, read from the store. */
    long left() throws Exception;

    /** Retries since the last {@link #reset}, for strategies that retry (optimistic locking). */
    default long retries() {
        return 0;
    }

    @Override
    void close() throws Exception;
}
