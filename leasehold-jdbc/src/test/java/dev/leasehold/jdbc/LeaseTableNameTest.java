package dev.leasehold.jdbc;

import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lease table's name leaves room for its sequence, {@code <table>_token}, which must fit
 * PostgreSQL's 63-byte identifiers: 57 characters at most, and a refusal names the table the user
 * gave (issue 19, defect 10). No database is needed: the name is checked when it is set.
 */
class LeaseTableNameTest {

    private final JdbcLocks.Builder builder = JdbcLocks.builder(new PGSimpleDataSource());

    @Test
    void aTableNameOf57CharactersIsAccepted() {
        builder.table("a".repeat(57));
        builder.table("app." + "a".repeat(57));
    }

    @Test
    void aLongerTableNameIsRefusedNamingItAndTheRealLimit() {
        String name = "a".repeat(58);
        assertThatThrownBy(() -> builder.table(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining("57")
                .hasMessageNotContaining(name + "_token")
                .hasMessageNotContaining("63");
        assertThatThrownBy(() -> builder.table("app." + name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'app." + name + "'")
                .hasMessageContaining("57");
    }

    @Test
    void theFenceGuardsTableKeepsTheFullIdentifierLength() {
        assertThat(new JdbcFenceGuard("f".repeat(63))).isNotNull();
    }
}
