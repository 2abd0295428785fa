package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.LogScan;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.engine.LeaseEngineTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the engine logs, read back from the module's test log (src/test/resources/simplelogger.properties):
 * a lost lease is one WARN with lock name, token and reason; a renewal outage is one WARN per lease,
 * then DEBUG; no full holder id anywhere.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeaseLoggingTest {

    /** Set by the build (parent pom, leasehold.test.logFile). */
    private static final Path LOG = Path.of(System.getProperty("org.slf4j.simpleLogger.logFile", "target/leasehold-tests.log"));

    private final InMemoryLockProtocol protocol = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofMillis(200), Duration.ofMillis(50)), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void aLostLeaseIsExactlyOneWarnWithNameTokenAndReason() throws Exception {
        String name = unique("lost");
        Lease lease = engine.lock(name, LockOptions.fixedLease(Duration.ofMillis(50)), protocol).acquire(Duration.ofSeconds(1));
        awaitLossReported(lease);
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class);
        lease.release();
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class);

        List<String> warnings = lines(name, " WARN ");
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0)).contains("'" + name + "'").contains("token " + lease.token())
                .contains("lost: the local deadline passed without a successful renewal");
    }

    @Test
    void aRenewalOutageWarnsOncePerLeaseThenLogsRetriesAtDebug() throws Exception {
        String name = unique("outage");
        ManagedLease lease = (ManagedLease) engine.lock(name, LockOptions.watchdog(Duration.ofMillis(900)), protocol)
                .acquire(Duration.ofSeconds(1));
        protocol.failRenewals(true);
        awaitLossReported(lease);
        protocol.failRenewals(false);

        List<String> renewalWarnings = lines(name, " WARN ").stream().filter(line -> line.contains("Renewal")).toList();
        List<String> renewalDebug = lines(name, " DEBUG ").stream().filter(line -> line.contains("Renewal")).toList();
        assertThat(renewalWarnings).hasSize(1);
        assertThat(renewalDebug).as("the retries after the first failure").isNotEmpty();
        assertThat(lines(name, " WARN ")).as("the failure, then the loss").hasSize(2);
        assertThat(lines(name, "")).noneMatch(line -> line.contains(lease.holder()))
                .noneMatch(line -> LogScan.HOLDER_ID.matcher(line).find());
        assertThat(renewalWarnings.get(0)).contains(HolderIds.redact(lease.holder()));
    }

    /** A renewal nobody answered was logged as a bare java.util.concurrent.TimeoutException (issue 22). */
    @Test
    void aRenewalThatGetsNoAnswerIsLoggedWithTheBackendAndWhatToCheck() throws Exception {
        String name = unique("unanswered");
        Lease lease = engine.lock(name, LockOptions.watchdog(Duration.ofMillis(900)), protocol).acquire(Duration.ofSeconds(1));
        protocol.holdRenewals();
        eventually(() -> !lease.isValid(), "the lease ended");
        eventually(() -> renewalWarned(name), "the renewal failure is logged");
        protocol.resumeReplies();

        String warning = lines(name, " WARN ").stream().filter(line -> line.contains("Renewal")).findFirst().orElseThrow();
        assertThat(warning).contains("token " + lease.token())
                .contains("in-memory did not answer the renewal in time; check that it is running and reachable")
                .contains("Retrying until the local deadline").doesNotContain("TimeoutException");
    }

    @Test
    void theLogScanRecognisesTheEnginesHolderIdsButNotTheirRedactedForm() {
        HolderIds ids = new HolderIds();
        for (int i = 0; i < 1000; i++) {
            String id = ids.next();
            assertThat(LogScan.HOLDER_ID.matcher("holder " + id + " failed").find()).as(id).isTrue();
            assertThat(LogScan.HOLDER_ID.matcher("holder " + HolderIds.redact(id) + " failed").find()).isFalse();
        }
    }

    /**
     * Waits until the loss is reported, not just visible: {@code isValid()} turns false the moment
     * another thread marks the lease lost, before that thread writes its WARN; {@code lost()}
     * completes after it.
     */
    private static void awaitLossReported(Lease lease) throws Exception {
        lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static String unique(String what) {
        return "logging-" + what + "-" + UUID.randomUUID();
    }

    /** Lines of the test log about {@code name} that contain {@code level}. */
    private static boolean renewalWarned(String name) {
        try {
            return lines(name, " WARN ").stream().anyMatch(line -> line.contains("Renewal"));
        } catch (IOException unreadable) {
            throw new java.io.UncheckedIOException(unreadable);
        }
    }

    private static List<String> lines(String name, String level) throws IOException {
        assertThat(LOG).as("the test log configured in simplelogger.properties").exists();
        return Files.readAllLines(LOG, StandardCharsets.UTF_8).stream()
                .filter(line -> line.contains("'" + name + "'") && line.contains(level))
                .toList();
    }
}
