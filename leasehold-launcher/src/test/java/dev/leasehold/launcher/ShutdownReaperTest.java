package dev.leasehold.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ShutdownReaperTest {

    @Test
    void aPausedServerLeftRunningIsKilledAndItsDirectoryDeletedWhenTheJvmExits() throws IOException, InterruptedException {
        String output = runProbe(ReaperProbe.class);
        long pid = Long.parseLong(output.replaceAll("(?s).*pid=(\\d+).*", "$1"));
        Path dir = Path.of(output.replaceAll("(?s).*dir=(\\S+).*", "$1"));

        assertThat(awaitNotRunning(pid)).as("redis-server pid %d still running", pid).isTrue();
        assertThat(dir).doesNotExist();
    }

    @Test
    void aPausedPostgresLeftRunningIsKilledWithEveryProcessItForkedWhenTheJvmExits() throws IOException, InterruptedException {
        String output = runProbe(PostgresReaperProbe.class);
        String[] pids = output.replaceAll("(?s).*pids=([0-9,]+).*", "$1").split(",");
        assertThat(pids.length).as("the postmaster and its background processes").isGreaterThan(1);
        for (String pid : pids) {
            assertThat(awaitNotRunning(Long.parseLong(pid))).as("PostgreSQL pid %s still running", pid).isTrue();
        }
    }

    /** Runs {@code probe}'s main in a child JVM and returns its output, once it has exited with 0. */
    private static String runProbe(Class<?> probe) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), probe.getName())
                .redirectErrorStream(true)
                .start();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.exitValue()).as(output).isZero();
        return output;
    }

    /**
     * The orphaned server is reparented to init, which may reap it late (or, in a container
     * without a real init, never): a zombie counts as not running.
     */
    private static boolean awaitNotRunning(long pid) throws IOException, InterruptedException {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            try {
                String text = Files.readString(stat);
                char state = text.charAt(text.lastIndexOf(')') + 2);
                if (state == 'Z' || state == 'X') {
                    return true;
                }
            } catch (NoSuchFileException e) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }
}
