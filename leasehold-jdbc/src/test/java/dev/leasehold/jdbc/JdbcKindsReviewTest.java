package dev.leasehold.jdbc;

import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.testkit.contract.KindsReviewContract;

/** The kinds review contract (exclusion and tokens across kinds, break, list, close) on PostgreSQL. */
class JdbcKindsReviewTest extends KindsReviewContract {

    @Override
    protected EngineLockClient connect() {
        return JdbcLocks.create(SharedDatabase.pool());
    }
}
