package dev.leasehold.bench;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Optional;

/**
 * ShedLock's {@link JdbcTemplateLockProvider} with the database's clock ({@code usingDbTime()}, which
 * ShedLock recommends), each lock held at most {@value #LOCK_AT_MOST_FOR_SECONDS} s and at least 0.
 * It issues no fencing token.
 *
 * <p>ShedLock has no blocking acquire: {@code lock()} returns at once, with or without the lock,
 * because a scheduled job that finds its lock taken is meant to skip its run. A benchmark
 * {@link Handle#acquire()} must block, so here it retries {@code lock()} every {@link #RETRY} until
 * granted, as an application that had to wait would poll; contended and handoff cells measure that
 * poll, not anything ShedLock offers.
 */
final class ShedLockJdbcAdapter implements LockAdapter {

    static final String LABEL = "ShedLock JdbcTemplateLockProvider";

    /** How long a blocked acquire sleeps before it tries {@code lock()} again. */
    static final Duration RETRY = Duration.ofMillis(10);

    static final long LOCK_AT_MOST_FOR_SECONDS = 10;

    /** ShedLock's table, as its README gives it for PostgreSQL. */
    private static final String TABLE = "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
            + "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";

    private final JdbcTemplateLockProvider provider;

    private ShedLockJdbcAdapter(JdbcTemplateLockProvider provider) {
        this.provider = provider;
    }

    /** A provider (one client) on {@code dataSource}, which the caller closes. */
    static ShedLockJdbcAdapter open(DataSource dataSource) {
        return new ShedLockJdbcAdapter(new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(dataSource))
                .usingDbTime()
                .build()));
    }

    /** The DDL of ShedLock's {@code shedlock} table. */
    static String tableDdl() {
        return TABLE;
    }

    @Override
    public String label() {
        return LABEL;
    }

    @Override
    public Handle lock(String name) {
        Duration atMost = Duration.ofSeconds(LOCK_AT_MOST_FOR_SECONDS);
        return () -> {
            while (true) {
                Optional<SimpleLock> lock = provider.lock(new LockConfiguration(ClockProvider.now(), name, atMost, Duration.ZERO));
                if (lock.isPresent()) {
                    return Held.of(NO_TOKEN, lock.get()::unlock);
                }
                try {
                    Thread.sleep(RETRY.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while polling ShedLock for " + name, e);
                }
            }
        };
    }

    /** The provider holds no connection of its own: the pool, which the caller closes, holds them. */
    @Override
    public void close() {
    }
}
