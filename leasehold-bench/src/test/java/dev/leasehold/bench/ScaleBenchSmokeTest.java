package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs both parts of {@link ScaleBench} with tiny counts on a real redis-server and renders the
 * report, so the benchmark cannot rot. The figures are not checked (a smoke run measures nothing),
 * nor that every lease outlived the window (on a starved machine a lease may lapse, which the run
 * reports); what is checked holds under any load: Leasehold's client never counts a lease as held
 * whose key the server no longer has, the short fence retention's keys all expire after the load,
 * the default retention keeps one fence key per name, and Leasehold's client keeps no per-name
 * state once the names were released.
 */
class ScaleBenchSmokeTest {

    @Test
    void bothPartsRunAndTheReportKeepsEachSection() {
        ScaleBench.Settings settings = ScaleBench.Settings.smoke();
        Progress progress = new Progress(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        ScaleBench.Leases leases;
        ScaleBench.Names names;
        try (RedisServer server = RedisServer.builder().start()) {
            leases = ScaleBench.leases(server, settings, progress);
            names = ScaleBench.names(server, settings, progress);
        }

        assertThat(leases.rounds()).containsOnlyKeys(Contender.LEASEHOLD, Contender.REDISSON);
        leases.rounds().forEach((contender, cells) -> assertThat(cells).singleElement().satisfies(cell -> {
            assertThat(cell.leasesAliveAtEnd()).as(contender + " lock keys").isBetween(0L, (long) settings.leases().leases());
            assertThat(cell.heap().classes()).isNotEmpty();
        }));
        WatchdogWorkload.Cell leasehold = leases.rounds().get(Contender.LEASEHOLD).get(0);
        assertThat(settings.leases().leases() - leasehold.hold().lostLocally())
                .as("leases the client counts as held have their key").isLessThanOrEqualTo(leasehold.leasesAliveAtEnd());
        assertThat(leases.rounds().get(Contender.REDISSON).get(0).hold().lostLocally()).isEqualTo(-1);

        assertThat(names.cells()).hasSize(3);
        assertThat(names.cells()).allSatisfy(cell -> assertThat(cell.names()).isPositive());
        FreshNamesWorkload.Cell shortRetention = names.cells().get(0);
        assertThat(shortRetention.peer()).startsWith(ScaleBench.LEASEHOLD_SHORT);
        assertThat(shortRetention.drainSeconds()).as("every fence key expired after the load").isNotNegative();
        assertThat(shortRetention.checkpoints()).last().satisfies(checkpoint ->
                assertThat(checkpoint.clientState()).as("per-name state after the drain").containsEntry("held leases", 0L)
                        .containsEntry("names with a local queue", 0L).containsEntry("pending timers", 0L)
                        .containsEntry("subscriptions", 0L));
        FreshNamesWorkload.Cell defaultRetention = names.cells().get(2);
        assertThat(defaultRetention.peer()).isEqualTo(ScaleBench.LEASEHOLD_DEFAULT);
        assertThat(defaultRetention.endOfLoad().keys()).as("one fence key per name, kept 10 minutes")
                .isEqualTo(defaultRetention.names());

        String leasesOnly = ScaleReport.merge("", ScaleBench.Part.LEASES, ScaleReport.leases(leases, settings));
        String both = ScaleReport.merge(leasesOnly, ScaleBench.Part.NAMES, ScaleReport.names(names, settings));
        assertThat(ScaleReport.sections(both)).containsOnlyKeys(ScaleBench.Part.values());
        assertThat(ScaleReport.sections(both).get(ScaleBench.Part.LEASES)).isEqualTo(
                ScaleReport.sections(leasesOnly).get(ScaleBench.Part.LEASES));
        assertThat(both).contains("watchdog leases on one client", "stayed valid", "fresh lock names",
                ScaleBench.REDISSON, "projected");
        String rerun = ScaleReport.merge(both, ScaleBench.Part.LEASES, "## leases again\n");
        assertThat(ScaleReport.sections(rerun).get(ScaleBench.Part.LEASES)).isEqualTo("## leases again");
        assertThat(ScaleReport.sections(rerun).get(ScaleBench.Part.NAMES))
                .isEqualTo(ScaleReport.sections(both).get(ScaleBench.Part.NAMES));
        assertThat(ScaleReport.conditions(Machine.describe("7"), settings, MachineLoad.now(), Duration.ofSeconds(1)))
                .contains("Revision", "smoke settings");
    }
}
