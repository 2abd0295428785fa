package dev.leasehold.jdbc;

import dev.leasehold.FenceGuard;
import dev.leasehold.Lease;

import java.sql.Connection;
import java.sql.SQLException;

/** A {@link JdbcFenceGuard} bound to one connection's transaction, seen as the core {@link FenceGuard}. */
final class ConnectionFenceGuard implements FenceGuard {

    private final JdbcFenceGuard guard;
    private final Connection connection;

    ConnectionFenceGuard(JdbcFenceGuard guard, Connection connection) {
        this.guard = guard;
        this.connection = connection;
    }

    @Override
    public <T> T admit(String resource, long token, FencedWrite<T> write) {
        return checked(() -> guard.admit(connection, resource, token), write);
    }

    @Override
    public <T> T admit(String resource, Lease lease, FencedWrite<T> write) {
        return checked(() -> guard.admit(connection, resource, lease), write);
    }

    @Override
    public long highestAdmitted(String resource) {
        try {
            return guard.highestAdmitted(connection, resource);
        } catch (SQLException e) {
            throw new JdbcTableException("reading table " + guard.table() + " failed: " + e.getMessage(), e);
        }
    }

    /** Runs {@code write} once {@code check} passed; a failing check statement is a {@link JdbcTableException}. */
    private <T> T checked(FenceCheck check, FencedWrite<T> write) {
        try {
            check.run();
        } catch (SQLException e) {
            throw new JdbcTableException("the fence check on table " + guard.table() + " failed: " + e.getMessage(), e);
        }
        return write.run();
    }

    /** One of {@link JdbcFenceGuard}'s admit checks, on this guard's connection. */
    @FunctionalInterface
    private interface FenceCheck {
        void run() throws SQLException;
    }
}
