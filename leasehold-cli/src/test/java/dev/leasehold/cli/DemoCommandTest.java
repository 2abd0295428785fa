package dev.leasehold.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code leasehold demo} with no {@code --redis}: it starts and stops its own redis-server, and
 * its result lines show the lost update on the unguarded store and the refusal on the guarded one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DemoCommandTest {

    @TempDir
    Path dir;

    @Test
    void theUnguardedStoreLosesBsUpdateAndTheGuardedStoreRefusesAsStaleToken() {
        long start = System.nanoTime();
        CliProcess demo = CliProcess.start(dir, Map.of(), "demo");

        assertThat(demo.awaitExit(Duration.ofSeconds(30))).as("stderr: %s", demo.stderr()).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));

        Map<String, String> unguarded = result(demo.stdout(), "unguarded");
        assertThat(unguarded).containsEntry("opening", "100").containsEntry("expected", "180")
                .containsEntry("final", "150").containsEntry("lost", "30").containsEntry("a_write", "stored");
        assertThat(number(unguarded, "b_token")).isGreaterThan(number(unguarded, "a_token"));

        Map<String, String> guarded = result(demo.stdout(), "guarded");
        assertThat(guarded).containsEntry("expected", "180").containsEntry("final", "180")
                .containsEntry("lost", "0").containsEntry("a_write", "refused");
        assertThat(number(guarded, "b_token")).isGreaterThan(number(guarded, "a_token"));
        assertThat(number(guarded, "a_retry_token")).isGreaterThan(number(guarded, "b_token"));
        assertThat(demo.stderr()).isEmpty();
    }

    /** The key=value pairs of the result line of one store's run. */
    private static Map<String, String> result(String stdout, String store) {
        String line = stdout.lines().filter(l -> l.startsWith(DemoCommand.RESULT + " store=" + store + " "))
                .findFirst().orElseThrow(() -> new AssertionError("no result line for " + store + " in:\n" + stdout));
        return Arrays.stream(line.split(" ")).skip(1).map(pair -> pair.split("=", 2))
                .collect(Collectors.toMap(pair -> pair[0], pair -> pair[1], (a, b) -> b));
    }

    private static long number(Map<String, String> result, String key) {
        return Long.parseLong(result.get(key));
    }
}
