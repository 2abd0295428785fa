package dev.leasehold.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mistakes on the command line end with the usage exit code and a message that names the
 * mistake, before any connection is tried (the Redis URI given points nowhere).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UsageErrorsTest {

    private static final Map<String, String> NO_SERVER = Map.of(RedisOption.ENV_VAR, "redis://127.0.0.1:1");

    @TempDir
    Path dir;

    @Test
    void aMissingCommandIsAUsageError() {
        CliProcess run = CliProcess.start(dir, NO_SERVER, "run", "job", "--ttl", "5s");

        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
        assertThat(run.stderr()).contains("missing command").contains("leasehold run job -- CMD");
    }

    @Test
    void aBadDurationIsAUsageErrorNamingTheOptionAndTheForms() {
        CliProcess run = CliProcess.start(dir, NO_SERVER, "run", "job", "--wait", "5 minutes", "--", "true");

        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
        assertThat(run.stderr()).contains("--wait").contains("'5 minutes' is not a duration").contains("500ms, 30s, 2m or 1h");
    }

    @Test
    void aTtlTooShortToStopTheCommandInTimeIsAUsageError() {
        CliProcess run = CliProcess.start(dir, NO_SERVER, "run", "job", "--ttl", "100ms", "--", "true");

        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
        assertThat(run.stderr()).contains("--ttl must be between 1s and 24h, was 100ms");
    }

    @Test
    void aZeroHoldAtLeastIsAUsageError() {
        CliProcess run = CliProcess.start(dir, NO_SERVER, "run", "job", "--hold-at-least", "0", "--", "true");

        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
        assertThat(run.stderr()).contains("--hold-at-least must be between 1ms and 720h, was 0");
    }

    @Test
    void noSubcommandPrintsTheHelpAndIsAUsageError() {
        CliProcess run = CliProcess.start(dir, NO_SERVER);

        assertThat(run.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
        assertThat(run.stderr()).contains("demo").contains("run").contains("inspect").contains("Exit codes:")
                .contains("on Redis, ZooKeeper or etcd");
    }

    /** run's help told of Redis alone, though ZooKeeper and etcd are backends too (issue 22). */
    @Test
    void runsHelpNamesEveryBackend() {
        CliProcess help = CliProcess.start(dir, NO_SERVER, "run", "--help");

        assertThat(help.awaitExit(Duration.ofSeconds(30))).isZero();
        assertThat(help.stdout()).contains("--backend").contains("redis, zookeeper, etcd")
                .contains("the backend (--backend) is unreachable").doesNotContain("Redis unreachable");
    }

    /** It was exit 69 with 'NXDOMAIN': Lettuce took 'localhost:63x1' for a host name. */
    @Test
    void aPortThatIsNotANumberIsAUsageError() {
        CliProcess inspect = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, "redis://localhost:63x1"), "inspect", "job");

        assertThat(inspect.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
        assertThat(inspect.stderr()).contains("the port '63x1', which is not a number");
    }

    /** The template in the message reached users broken, as 'redis://]host:port[/db]'. */
    @Test
    void aSpaceInThePasswordIsAUsageErrorWithAnIntactTemplate() {
        CliProcess inspect = CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, "redis://user:top secret@localhost:6379"),
                "inspect", "job");

        assertThat(inspect.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
        assertThat(inspect.stderr()).contains("%20").doesNotContain("secret").doesNotContain("]host");
    }
}
