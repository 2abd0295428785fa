package dev.leasehold.bench;

import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Spring Integration's {@link JdbcLockRegistry} over its {@link DefaultLockRepository}, as a Spring
 * application wires them (a {@link DataSourceTransactionManager} on the same pool), with its defaults:
 * a lock row lives 10 s unless renewed, and a blocked {@code lock()} retries every 100 ms. It issues no
 * fencing token. Its locks are owned by the thread that locked them, which matches the
 * {@link LockAdapter} contract; each registry is one client (its own id, its own in-process locks).
 */
final class SpringJdbcLockAdapter implements LockAdapter {

    static final String LABEL = "Spring Integration JdbcLockRegistry";

    /** Spring Integration's own DDL for PostgreSQL, in its jar; the lock table is one statement of it. */
    private static final String SCHEMA = "/org/springframework/integration/jdbc/schema-postgresql.sql";
    /** How long a blocked {@code lock()} sleeps between tries: Spring Integration's default, set so the report can state it. */
    static final Duration IDLE_BETWEEN_TRIES = Duration.ofMillis(100);

    private static final Pattern LOCK_TABLE = Pattern.compile("CREATE TABLE INT_LOCK\\s*\\(.*?\\);", Pattern.DOTALL);

    private final DefaultLockRepository repository;
    private final JdbcLockRegistry registry;

    private SpringJdbcLockAdapter(DefaultLockRepository repository, JdbcLockRegistry registry) {
        this.repository = repository;
        this.registry = registry;
    }

    /** A registry (a client with its own id) on {@code dataSource}, which the caller closes. */
    static SpringJdbcLockAdapter open(DataSource dataSource) {
        DefaultLockRepository repository = new DefaultLockRepository(dataSource);
        repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        registry.setIdleBetweenTries(IDLE_BETWEEN_TRIES);
        return new SpringJdbcLockAdapter(repository, registry);
    }

    /**
     * The DDL of Spring Integration's {@code INT_LOCK} table, from the DDL its jar ships for PostgreSQL.
     *
     * @throws IllegalStateException if the jar's DDL has no {@code INT_LOCK} table
     */
    static String tableDdl() {
        String ddl;
        try (InputStream in = JdbcLockRegistry.class.getResourceAsStream(SCHEMA)) {
            if (in == null) {
                throw new IllegalStateException(SCHEMA + " is missing from spring-integration-jdbc");
            }
            ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + SCHEMA, e);
        }
        Matcher table = LOCK_TABLE.matcher(ddl);
        if (!table.find()) {
            throw new IllegalStateException(SCHEMA + " has no CREATE TABLE INT_LOCK statement");
        }
        return table.group();
    }

    @Override
    public String label() {
        return LABEL;
    }

    @Override
    public Handle lock(String name) {
        return Handle.locking(registry.obtain(name));
    }

    /** Deletes this client's lock rows, as the repository does when its application context closes. */
    @Override
    public void close() {
        repository.close();
    }
}
