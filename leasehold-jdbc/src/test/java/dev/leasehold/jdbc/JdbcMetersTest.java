package dev.leasehold.jdbc;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.testkit.meters.MeterChecks;
import dev.leasehold.testkit.meters.MeterReadings;
import dev.leasehold.testkit.meters.WithoutMicrometer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The PostgreSQL backend's meters through {@code JdbcLocks.builder(...).meterRegistry(registry)}, on the shared server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcMetersTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MeterReadings meters = new MeterReadings(registry);
    private final List<JdbcLockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(JdbcLockClient::close);
    }

    private JdbcLockClient client() {
        JdbcLockClient client = JdbcLocks.builder(SharedDatabase.pool()).meterRegistry(registry).build();
        clients.add(client);
        return client;
    }

    @Test
    void theBuilderRefusesANullRegistryOrEvents() {
        JdbcLocks.Builder builder = JdbcLocks.builder(SharedDatabase.pool());
        assertThatThrownBy(() -> builder.meterRegistry(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("registry");
        assertThatThrownBy(() -> builder.leaseEvents(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LeaseEvents.NONE");
    }

    @Test
    void aClientWithoutARegistryWorksWithNoMicrometerOnTheClassPath() throws Exception {
        PostgresServer server = SharedDatabase.server();
        assertThat(WithoutMicrometer.run(NoMicrometerProbe.class,
                server.jdbcUrl() + "\n" + server.user() + "\n" + server.password()))
                .startsWith("token ").endsWith("renewed, RELEASED");
    }

    @Test
    void anAcquireAndReleaseMoveTheWaitTheHeldTimerAndTheActiveGauge() {
        MeterChecks.acquireAndReleaseMoveTheMeters(client(), "meters:held", meters);
    }

    @Test
    void aTimeoutIsCountedAsSuch() {
        MeterChecks.aTimeoutIsCounted(client(), client(), "meters:busy", meters);
    }

    @Test
    void readAndWriteLocksReportTheirOwnKind() {
        MeterChecks.eachKindReportsItsTag(client(), "meters:", List.of("read", "write"), meters);
    }

    @Test
    void aLeaseWhoseRowWasDeletedIsCountedLostWhenTheRenewalFindsItGone() throws Exception {
        Lease lease = client().lock("meters:deleted", LockOptions.watchdog(Duration.ofMillis(600))).acquire(WAIT);
        try (Connection connection = SharedDatabase.pool().getConnection();
             PreparedStatement delete = connection.prepareStatement(
                     "DELETE FROM " + JdbcLocks.DEFAULT_TABLE + " WHERE name = ?")) {
            delete.setString(1, "meters:deleted");
            assertThat(delete.executeUpdate()).isEqualTo(1);
        }
        lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(meters.lost("refused")).isEqualTo(1);
        assertThat(meters.lost("expired")).isZero();
        assertThat(meters.active()).isZero();
    }
}
