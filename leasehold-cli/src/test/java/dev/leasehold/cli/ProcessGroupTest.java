package dev.leasehold.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A process group id is a pid, and pids are reused. This test makes the kernel hand out the id of
 * a finished command's group to a new process group, through {@code /proc/sys/kernel/ns_last_pid}
 * (writable by root, or in a pid namespace of one's own); it is skipped where that is not allowed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProcessGroupTest {

    private static final Path NS_LAST_PID = Path.of("/proc/sys/kernel/ns_last_pid");

    @Test
    void theGroupIdIsPinnedWhileInUseAndAReusedOneIsNotMistakenForTheCommandsGroup() {
        // Forcing a pid needs root; CI runs as root, and a skip would hide the check there.
        assertThat(Files.isWritable(NS_LAST_PID)).as("this test steers pid reuse through %s: run the tests as root,"
                + " as CI does", NS_LAST_PID).isTrue();
        long inAnHour = System.nanoTime() + Duration.ofHours(1).toNanos();
        ChildProcess child = ChildProcess.start(List.of("true"), Map.of(),
                () -> new Lifeline.Deadlines(inAnHour, inAnHour), message -> { });
        long id = child.group().id();
        child.awaitExit(); // the leader is gone and reaped

        // While leasehold may still signal the group, its lifeline keeps the id from being reused.
        Process early = startWithPid(id, Duration.ofSeconds(1));
        if (early != null) {
            early.destroyForcibly();
        }
        assertThat(early).as("a new process got pid %d while the group was in use", id).isNull();

        child.close();
        // The killed lifeline's zombie pins the id too, until init gets round to reaping it.
        Process foreign = startWithPid(id, Duration.ofSeconds(20));
        assertThat(foreign).as("pid %d, free again, could not be had for a new process group within 20 s", id).isNotNull();
        try {
            assertThat(child.group().hasLiveMembers()).isFalse();
            assertThat(child.group().signal("TERM")).isFalse();
            assertThat(foreign.isAlive()).isTrue();
        } finally {
            foreign.destroyForcibly();
        }
    }

    /**
     * A new process group led by pid {@code pid}, or null if that pid could not be had within
     * {@code patience} (other processes on the machine may take it first, or it is in use).
     */
    private static Process startWithPid(long pid, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                Files.writeString(NS_LAST_PID, Long.toString(pid - 1));
                Process process = new ProcessBuilder("setsid", "sleep", "30")
                        .redirectOutput(Redirect.DISCARD).redirectError(Redirect.DISCARD).start();
                if (process.pid() == pid) {
                    return process;
                }
                process.destroyForcibly();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        return null;
    }
}
