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
        try {
            guard.admit(connection, resource, token);
        } catch (SQLException e) {
            throw new JdbcTableException("the fence check on table " + guard.table() + " failed: " + e.getMessage(), e);
        }
        return write.run();
    }

    @Override
    public <T> T admit(String resource, Lease lease, FencedWrite<T> write) {
        try {
            guard.admit(connection, resource, lease);
        } catch (SQLException e) {
            throw new JdbcTableException("the fence check on table " + guard.table() + " failed: " + e.getMessage(), e);
        }
        return write.run();
    }

    @Override
    public long highestAdmitted(String resource) {
        try {
            return guard.highestAdmitted(connection, resource);
        } catch (SQLException e) {
            throw new JdbcTableException("reading table " + guard.table() + " failed: " + e.getMessage(), e);
        }
    }
}
