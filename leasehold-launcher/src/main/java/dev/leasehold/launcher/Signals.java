package dev.leasehold.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends POSIX signals to a process by pid with the {@code kill} command, which the JDK
 * cannot do for SIGSTOP and SIGCONT.
 *
 * <p>Each method returns only after {@code kill} has exited successfully; a failure (no such
 * process, not permitted) is an {@link IllegalStateException} carrying {@code kill}'s message.
 * Prefer {@link Process#destroy()} and {@link Process#destroyForcibly()} for a child process
 * you own: the JDK never signals a child it has already reaped, whereas a pid given to
 * {@code kill} may in rare cases have been recycled by an unrelated process.
 */
public final class Signals {

    private static final Duration KILL_COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(2);
    private static final long POLL_NANOS = 200_000;

    private Signals() {
    }

    /**
     * Sends SIGSTOP. On Linux, returns only once the process is actually stopped, so
     * whatever the caller does next happens while it is frozen.
     *
     * @throws IllegalStateException if the signal cannot be sent, or the process does not stop within 2 s
     */
    public static void stop(long pid) {
        send("STOP", pid);
        awaitStopped(pid);
    }

    /**
     * Sends SIGCONT, resuming a stopped process.
     *
     * @throws IllegalStateException if the signal cannot be sent
     */
    public static void cont(long pid) {
        send("CONT", pid);
    }

    /**
     * Sends SIGTERM, asking the process to exit; does not wait for it to exit.
     *
     * @throws IllegalStateException if the signal cannot be sent
     */
    public static void term(long pid) {
        send("TERM", pid);
    }

    /**
     * Sends SIGKILL; does not wait for the process to exit.
     *
     * @throws IllegalStateException if the signal cannot be sent
     */
    public static void kill(long pid) {
        send("KILL", pid);
    }

    private static void send(String signal, long pid) {
        Exec.Result result;
        try {
            result = Exec.run(KILL_COMMAND_TIMEOUT, "kill", "-" + signal, Long.toString(pid));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + signal + " " + pid, e);
        }
        if (!result.succeeded()) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed (exit code "
                    + result.exitCode() + "): " + result.output().strip());
        }
    }

    /**
     * SIGSTOP takes effect asynchronously; on Linux /proc shows when it has. Elsewhere there
     * is no portable way to tell, and delivery is immediate in practice.
     */
    private static void awaitStopped(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
        try {
            while (!isStopped(Files.readString(stat, StandardCharsets.US_ASCII))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("process " + pid + " did not stop within " + STOP_TIMEOUT);
                }
                LockSupport.parkNanos(POLL_NANOS);
            }
        } catch (NoSuchFileException e) {
            // no /proc (not Linux): trust the signal
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + stat, e);
        }
    }

    /** The state letter follows the parenthesised command name, which may itself contain spaces. */
    private static boolean isStopped(String stat) {
        char state = stat.charAt(stat.lastIndexOf(')') + 2);
        return state == 'T' || state == 't';
    }
}
