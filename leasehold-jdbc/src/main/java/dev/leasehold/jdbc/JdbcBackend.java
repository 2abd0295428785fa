package dev.leasehold.jdbc;

import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.spi.InspectedBackend;
import dev.leasehold.spi.KindProtocols;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.Shutdowns;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * PostgreSQL as the core client's {@link dev.leasehold.spi.Backend}: one {@link JdbcLockProtocol} per lock kind over
 * the client's lease table (every kind, semaphores included), its leader records, its inspector, and
 * the end of its LISTEN connection and executor. Leader records of elections are a row per election
 * in {@code <table>_leader} (created on first use), fenced by the term's token, expiring in database
 * time with the term.
 */
final class JdbcBackend extends InspectedBackend<JdbcInspector> {

    private final JdbcLockProtocol.Shared shared;
    private final KindProtocols<JdbcLockProtocol> protocols;

    JdbcBackend(JdbcLockProtocol.Shared shared) {
        super(new JdbcInspector(shared), new JdbcLeaderRecords(shared));
        this.shared = shared;
        this.protocols = new KindProtocols<>(kind -> new JdbcLockProtocol(shared, LeaseKind.of(kind)));
    }

    @Override
    public String describe() {
        return shared.database();
    }

    /**
     * {@code name} if it can be a primary key entry: at most 2048 bytes in UTF-8 (names of other
     * scripts than Latin may reach it before 1024 characters), without NUL.
     */
    @Override
    public String lockName(String name) {
        return IndexedText.name(name);
    }

    /** Every kind; options change nothing here, so one protocol serves each kind (and each number of permits). */
    @Override
    public LockProtocol protocol(LockKind kind, LockOptions options) {
        return protocols.of(kind);
    }

    /** Counts the name's live permit rows, on the caller's thread, in one bounded transaction. */
    @Override
    public int availablePermits(String name, int permits) {
        try (Connection connection = shared.dataSource().getConnection()) {
            return shared.table().availablePermits(connection, name, permits);
        } catch (SQLException | RuntimeException e) {
            throw JdbcErrors.translate(shared.database(), "counting the free permits of '" + name + "'", e);
        }
    }

    /** Release subscriptions of waiting acquisitions open now. */
    int activeSubscriptions() {
        return shared.listener().subscriptions();
    }

    @Override
    public void close() {
        shared.listener().close();
        Shutdowns.executor(shared.executor(), Duration.ofSeconds(5));
    }
}
