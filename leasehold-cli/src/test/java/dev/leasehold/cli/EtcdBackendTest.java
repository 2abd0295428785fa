package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.etcd.EtcdLockClient;
import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code run} and {@code inspect} with {@code --backend etcd}, as real processes against a real etcd. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdBackendTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    @TempDir
    Path dir;

    private CliProcess leasehold(String... args) {
        return CliProcess.start(dir, Map.of(BackendOption.ETCD_ENV_VAR, cluster.get().endpoints()), args);
    }

    @Test
    void inspectShowsTheHolderAndTokenAndRunWaitsForTheLockThenRunsWithALargerToken() throws IOException {
        long heldToken;
        try (EtcdLockClient locks = EtcdLocks.connect(cluster.get().endpoints());
             Lease lease = locks.lock("cli:etcd").acquire(Duration.ofSeconds(5))) {
            heldToken = lease.token();
            CliProcess inspect = leasehold("inspect", "--backend", "etcd", "cli:etcd", "--json");
            assertThat(inspect.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(inspect.stdout()).contains("\"held\":true").contains("\"fence\":" + heldToken);

            CliProcess refused = leasehold("run", "--backend", "etcd", "cli:etcd", "--wait", "0", "--", "true");
            assertThat(refused.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.NOT_OBTAINED);
            assertThat(refused.stderr()).contains("not obtained");
        }
        CliProcess ran = leasehold("run", "--backend", "etcd", "--endpoints", cluster.get().endpoints(), "cli:etcd",
                "--wait", "5s", "--", "sh", "-c", "echo $LEASEHOLD_TOKEN > token");
        assertThat(ran.awaitExit(EXIT_TIMEOUT)).isZero();
        assertThat(Long.parseLong(Files.readString(dir.resolve("token")).trim())).isGreaterThan(heldToken);

        CliProcess free = leasehold("inspect", "--backend", "etcd", "cli:etcd", "--json");
        assertThat(free.awaitExit(EXIT_TIMEOUT)).isZero();
        assertThat(free.stdout()).contains("\"held\":false");
    }

    /**
     * A renewal nobody answers (the cluster is paused) is reported with the server, the operation
     * and what to check, not as a bare {@code java.util.concurrent.TimeoutException} (issue 22). On
     * a cluster of its own: a resumed cluster may take a moment to answer again, which the other
     * tests should not depend on.
     */
    @Test
    void aRenewalThatGetsNoAnswerNamesTheServerAndWhatToCheck() {
        try (EtcdCluster paused = EtcdCluster.start(1)) {
            CliProcess run = CliProcess.start(dir, Map.of(), "run", "--backend", "etcd", "--endpoints",
                    paused.endpoints(), "cli:unanswered", "--ttl", "3s", "--grace", "100ms", "--", "sh", "-c",
                    "echo started > started; sleep 30");
            Processes.awaitLine(dir.resolve("started"), Duration.ofSeconds(20));
            paused.pauseAll();
            try {
                assertThat(run.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.LEASE_LOST);
            } finally {
                paused.resumeAll();
            }
            assertThat(run.stderr()).contains("Renewal of lock 'cli:unanswered'")
                    .containsPattern("etcd http://\\S+ did not answer the renewal in time; "
                            + "check that it is running and reachable from this host")
                    .containsPattern("was not renewed in time \\(no renewal succeeded at etcd http://\\S+; check "
                            + "that it is running and reachable from this host\\): sending SIGTERM")
                    .doesNotContain("TimeoutException");
        }
    }

    @Test
    void malformedEndpointsAreAUsageError() {
        CliProcess malformed = leasehold("inspect", "--backend", "etcd", "--endpoints", "localhost:2379", "x");
        assertThat(malformed.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(malformed.stderr()).contains("--endpoints");
    }
}
