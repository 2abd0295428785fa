package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.zookeeper.ZooKeeperLocks;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The line {@code run} prints while it waits (issue 22), on the backends whose queues register
 * every waiter, this run's own acquisition included: ZooKeeper and etcd. It names the holder and
 * counts only the other waiters; a free lock and {@code --wait 0} show no waiting line at all.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WaitingLineTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);

    private static TestingServer zookeeper;
    private static EtcdCluster etcd;

    @TempDir
    Path dir;

    /** A backend as the command line names it, and a library client on the same servers. */
    record Backend(String name, List<String> options, Supplier<LockClient> client) {
        @Override
        public String toString() {
            return name;
        }
    }

    @BeforeAll
    static void startServers() throws Exception {
        zookeeper = new TestingServer(true);
        etcd = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopServers() throws IOException {
        etcd.close();
        zookeeper.close();
    }

    static Stream<Backend> backends() {
        return Stream.of(
                new Backend("zookeeper", List.of("--backend", "zookeeper", "--endpoints", zookeeper.getConnectString()),
                        () -> ZooKeeperLocks.connect(zookeeper.getConnectString())),
                new Backend("etcd", List.of("--backend", "etcd", "--endpoints", etcd.endpoints()),
                        () -> EtcdLocks.connect(etcd.endpoints())));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void theWaitingLineNamesTheHolderAndCountsOnlyTheOtherWaiters(Backend backend) throws Exception {
        String name = "nightly-" + backend.name();
        try (LockClient holding = backend.client().get(); LockClient waiting = backend.client().get();
             Lease held = holding.lock(name).acquire(Duration.ofSeconds(5))) {
            CliProcess alone = run(backend, "run", name, "--wait", "2s", "--", "true");
            assertThat(alone.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.NOT_OBTAINED);
            assertThat(alone.stderr()).contains("waiting for lock '" + name + "': held by ")
                    .contains("not obtained within 2s: held by ")
                    .doesNotContain("1 waiting").doesNotContain("other waiting").doesNotContain("free now")
                    .doesNotContain("giving up in 0ms");

            CompletableFuture<Lease> other = waiting.lock(name).acquireAsync(Duration.ofSeconds(60));
            CliProcess behindAnother = run(backend, "run", name, "--wait", "2s", "--", "true");
            assertThat(behindAnother.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.NOT_OBTAINED);
            assertThat(behindAnother.stderr()).contains("waiting for lock '" + name + "': held by ")
                    .contains(", 1 other waiting; giving up in ");
            other.cancel(true);
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aFreeLockOrAZeroWaitShowsNoWaitingLine(Backend backend) {
        String name = "free-" + backend.name();
        for (String wait : List.of("0", "5s")) {
            CliProcess free = run(backend, "run", name, "--wait", wait, "--", "true");
            assertThat(free.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", free.stderr()).isZero();
            assertThat(free.stderr()).contains("acquired lock '" + name + "'").doesNotContain("waiting for lock");
        }
    }

    private CliProcess run(Backend backend, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(2, backend.options());
        return CliProcess.start(dir, Map.of(), all.toArray(String[]::new));
    }
}
