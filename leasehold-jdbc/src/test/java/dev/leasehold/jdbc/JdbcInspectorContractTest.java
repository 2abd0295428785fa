package dev.leasehold.jdbc;

import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.testkit.contract.InspectorContract;

/** The inspector contract on PostgreSQL, through the shared pool; {@link JdbcInspectorTest} adds what only this backend has. */
class JdbcInspectorContractTest extends InspectorContract {

    @Override
    protected EngineLockClient connect() {
        return JdbcLocks.create(SharedDatabase.pool());
    }
}
