package dev.leasehold.cli;

import dev.leasehold.testkit.junit.TestServer;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code run} and {@code inspect} with {@code --backend zookeeper}, as real processes, on a real ZooKeeper server. */
class ZooKeeperBackendTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension
    static final TestServer<TestingServer> zookeeper = TestServer.perClass(() -> new TestingServer(true));
    private final List<CliProcess> started = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void killLeftovers() {
        started.forEach(CliProcess::destroy);
    }

    @Test
    void runHoldsTheLockOnZooKeeperWhileItsCommandRunsAndInspectShowsTheHolder() throws IOException {
        CliProcess holder = run("run", "zk-job", "--backend", "zookeeper", "--endpoints", zookeeper.get().getConnectString(),
                "--", "sh", "-c", "echo $LEASEHOLD_TOKEN > token; while [ ! -e go ]; do sleep 0.05; done");
        long token = Long.parseLong(Processes.awaitLine(dir.resolve("token"), Duration.ofSeconds(20)).strip());
        assertThat(token).isPositive();

        CliProcess other = run("run", "zk-job", "--wait", "0", "--backend", "zookeeper", "--endpoints",
                zookeeper.get().getConnectString(), "--", "sh", "-c", "touch ran");
        assertThat(other.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.NOT_OBTAINED);
        assertThat(dir.resolve("ran")).doesNotExist();

        CliProcess inspect = run("inspect", "zk-job", "--backend", "zookeeper", "--endpoints", zookeeper.get().getConnectString());
        assertThat(inspect.awaitExit(EXIT_TIMEOUT)).isZero();
        assertThat(inspect.stdout()).contains("zk-job").doesNotContain("none (free)").contains("waiters  0")
                .as("the holder has token %d: 'no token issued' would be wrong (issue 22)", token)
                .doesNotContain("no token issued");

        Files.createFile(dir.resolve("go"));
        assertThat(holder.awaitExit(EXIT_TIMEOUT)).isZero();
        CliProcess next = run("run", "zk-job", "--wait", "5s", "--backend", "zookeeper", "--endpoints",
                zookeeper.get().getConnectString(), "--", "sh", "-c", "echo $LEASEHOLD_TOKEN > token-2");
        assertThat(next.awaitExit(EXIT_TIMEOUT)).isZero();
        assertThat(Long.parseLong(Files.readString(dir.resolve("token-2")).strip())).isGreaterThan(token);
    }

    @Test
    void theBackendOptionsMustFitTogether() {
        CliProcess noEndpoints = run("run", "x", "--backend", "zookeeper", "--", "true");
        assertThat(noEndpoints.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(noEndpoints.stderr()).contains("--backend zookeeper needs --endpoints");

        CliProcess endpointsForRedis = run("inspect", "x", "--endpoints", "127.0.0.1:2181");
        assertThat(endpointsForRedis.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(endpointsForRedis.stderr()).contains("--endpoints is for --backend zookeeper");

        CliProcess redisForZooKeeper = run("inspect", "x", "--backend", "zookeeper", "--endpoints",
                zookeeper.get().getConnectString(), "--redis", "redis://127.0.0.1:6379");
        assertThat(redisForZooKeeper.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(redisForZooKeeper.stderr()).contains("--redis is for --backend redis");

        CliProcess missingChroot = run("inspect", "x", "--backend", "zookeeper", "--endpoints",
                zookeeper.get().getConnectString() + "/no-such-chroot");
        assertThat(missingChroot.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(missingChroot.stderr()).contains("chroot /no-such-chroot does not exist");
    }

    /** With $LEASEHOLD_ZOOKEEPER_DIGEST, the lock's nodes are the user's: a session without it may not see them. */
    @Test
    void digestCredentialsFromTheEnvironmentProtectTheLock() {
        String secret = "zk-cli-digest-secret";
        Map<String, String> env = Map.of(BackendOption.ZOOKEEPER_DIGEST_ENV_VAR, "ops:" + secret);
        CliProcess holder = run(env, "run", "zk-digest-job", "--backend", "zookeeper", "--endpoints",
                zookeeper.get().getConnectString(), "--", "sh", "-c", "echo held > held; while [ ! -e go ]; do sleep 0.05; done");
        Processes.awaitLine(dir.resolve("held"), Duration.ofSeconds(20));

        CliProcess withDigest = run(env, "inspect", "zk-digest-job", "--backend", "zookeeper", "--endpoints",
                zookeeper.get().getConnectString());
        assertThat(withDigest.awaitExit(EXIT_TIMEOUT)).as("stderr: %s", withDigest.stderr()).isZero();
        assertThat(withDigest.stdout()).contains("zk-digest-job").doesNotContain("none (free)");

        CliProcess anonymous = run("inspect", "zk-digest-job", "--backend", "zookeeper", "--endpoints",
                zookeeper.get().getConnectString());
        assertThat(anonymous.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(anonymous.stderr()).contains("credentials").doesNotContain(secret);

        CliProcess malformed = run(Map.of(BackendOption.ZOOKEEPER_DIGEST_ENV_VAR, secret), "inspect", "zk-digest-job",
                "--backend", "zookeeper", "--endpoints", zookeeper.get().getConnectString());
        assertThat(malformed.awaitExit(EXIT_TIMEOUT)).isEqualTo(ExitCodes.USAGE);
        assertThat(malformed.stderr()).contains("user:password").doesNotContain(secret);

        touch(dir.resolve("go"));
        assertThat(holder.awaitExit(EXIT_TIMEOUT)).isZero();
        assertThat(holder.stdout() + holder.stderr()).doesNotContain(secret);
    }

    private static void touch(Path file) {
        try {
            Files.createFile(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private CliProcess run(String... args) {
        return run(Map.of(), args);
    }

    private CliProcess run(Map<String, String> env, String... args) {
        CliProcess process = CliProcess.start(dir, env, args);
        started.add(process);
        return process;
    }
}
