package dev.leasehold.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.launcher.PostgresServer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** The connection pool every PostgreSQL benchmark client gets: HikariCP on the benchmark's own server. */
final class PostgresPool {

    private static final long FILL_TIMEOUT_SECONDS = 30;

    private PostgresPool() {
    }

    /**
     * A pool of at most {@code size} connections to {@code server} with a 30 s socket timeout (a call
     * to a frozen server ends), returned once {@code idle} connections are open: a connection costs a
     * SCRAM login, which would otherwise land in the first measured operations.
     *
     * @throws IllegalStateException if the pool does not open {@code idle} connections within 30 s (it is closed)
     */
    static HikariDataSource open(PostgresServer server, int size, int idle) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.jdbcUrl());
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(idle);
        config.addDataSourceProperty("socketTimeout", "30");
        HikariDataSource pool = new HikariDataSource(config);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(FILL_TIMEOUT_SECONDS);
        while (pool.getHikariPoolMXBean().getTotalConnections() < idle) {
            if (System.nanoTime() > deadline) {
                int open = pool.getHikariPoolMXBean().getTotalConnections();
                pool.close();
                throw new IllegalStateException("the pool opened " + open + " of " + idle + " connections to "
                        + server + " in " + FILL_TIMEOUT_SECONDS + " s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        return pool;
    }
}
