package dev.leasehold.shedlock;

import dev.leasehold.LockClient;

import java.util.Map;

/** lockAtLeastFor on a real PostgreSQL server. */
class PostgresLockAtLeastForTest extends LockAtLeastForContract {

    @Override
    protected LockClient newClient() {
        return Backends.postgresClient();
    }

    @Override
    protected Map<String, String> processEnvironment() {
        return Backends.postgresEnvironment();
    }
}
