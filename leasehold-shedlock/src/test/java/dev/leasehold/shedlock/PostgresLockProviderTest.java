package dev.leasehold.shedlock;

import dev.leasehold.LockClient;

import java.util.ArrayList;
import java.util.List;

/** The provider contract on a real PostgreSQL server, through a connection pool. */
class PostgresLockProviderTest extends LockProviderContract {

    @Override
    protected LockClient newClient() {
        return Backends.postgresClient();
    }

    /** PostgreSQL's text cannot hold NUL; a name longer than its index allows is refused too. */
    @Override
    protected List<String> refusedNames() {
        List<String> refused = new ArrayList<>(super.refusedNames());
        refused.add("nul \u0000 inside");
        refused.add("锁".repeat(1000));
        return refused;
    }
}
