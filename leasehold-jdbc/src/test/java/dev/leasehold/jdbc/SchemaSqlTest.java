package dev.leasehold.jdbc;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** schema.sql's regions, as the tables' creation runs them (the tables themselves: JdbcLocksTest, JdbcFenceGuardTest). */
class SchemaSqlTest {

    @Test
    void aConfiguredNameReplacesTheDefaultAsAWholeWordOnly() {
        assertThat(SchemaSql.statements("lease-table", Map.of("leasehold_lease", "\"app\".\"leases\"",
                "leasehold_lease_token", "\"app\".\"leases_token\"")))
                .containsExactly("CREATE SEQUENCE IF NOT EXISTS \"app\".\"leases_token\"",
                        "CREATE TABLE IF NOT EXISTS \"app\".\"leases\" ( name text NOT NULL, holder text NOT NULL, "
                                + "kind text NOT NULL, token bigint NOT NULL, expires_at timestamptz NOT NULL, "
                                + "PRIMARY KEY (name, holder) )");
        assertThat(SchemaSql.statements("fence-table", Map.of("leasehold_fence", "\"f\"")))
                .containsExactly("CREATE TABLE IF NOT EXISTS \"f\" ( resource text PRIMARY KEY, token bigint NOT NULL )");
        assertThat(SchemaSql.statements("leader-table", Map.of("leasehold_lease_leader", "\"l\"")))
                .singleElement().asString().startsWith("CREATE TABLE IF NOT EXISTS \"l\" (").contains("value text,");
    }

    @Test
    void aMissingRegionIsABrokenBuild() {
        assertThatThrownBy(() -> SchemaSql.statements("no-such-table", Map.of()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no-such-table");
    }
}
