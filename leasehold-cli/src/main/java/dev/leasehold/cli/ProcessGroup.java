package dev.leasehold.cli;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A POSIX process group, addressed by its id: the unit {@code run} stops when a lease is lost,
 * so that a shell's background jobs and a script's children stop with it. The JDK can signal
 * one process but not a group, so this uses {@code kill(1)} and reads {@code /proc}.
 *
 * <p>Signalling a group id is safe from pid reuse: Linux does not hand out a number that is
 * still in use as a process group id, so as long as a member lives, the id is ours.
 */
final class ProcessGroup {

    private static final long KILL_COMMAND_TIMEOUT_SECONDS = 5;
    private static final long POLL_MILLIS = 10;

    private final long pgid;
    private final Lifeline lifeline;

    ProcessGroup(long pgid, Lifeline lifeline) {
        this.pgid = pgid;
        this.lifeline = lifeline;
    }

    long id() {
        return pgid;
    }

    /**
     * Sends {@code signal} (a name such as {@code TERM} or {@code KILL}) to every member.
     *
     * @return false if the signal could not be sent, typically because the group has no member
     */
    boolean signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, "--", "-" + pgid)
                    .redirectOutput(Redirect.DISCARD)
                    .redirectError(Redirect.DISCARD)
                    .start();
            if (!kill.waitFor(KILL_COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                return false;
            }
            return kill.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Whether any member other than the lifeline is still running. Zombies do not count: a
     * killed grandchild whose new parent never reaps it (as in some containers) no longer runs
     * anything.
     */
    boolean hasLiveMembers() {
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), ProcessGroup::isPidDirectory)) {
            for (Path process : processes) {
                if (isLiveMember(process) && !lifeline.isLifeline(commandLine(process))) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            // Without /proc there is nothing to read; "kill -0" still tells if any member exists.
            return signal("0");
        }
    }

    /** Waits up to {@code timeout} for the lifeline to end, e.g. after its FIFO was closed. */
    void awaitLifelineEnd(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (lifelineRunning() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS));
        }
    }

    private boolean lifelineRunning() {
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), ProcessGroup::isPidDirectory)) {
            for (Path process : processes) {
                if (isLiveMember(process) && lifeline.isLifeline(commandLine(process))) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false; // nothing to wait on that we could see
        }
    }

    private boolean isLiveMember(Path process) {
        String line;
        try {
            line = Files.readString(process.resolve("stat"), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return false; // the process ended while we looked
        }
        // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses, so parse
        // from the last ')'.
        String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ", 4);
        char state = fields[0].charAt(0);
        return Long.parseLong(fields[2]) == pgid && state != 'Z' && state != 'X';
    }

    private static List<String> commandLine(Path process) {
        try {
            return Arrays.asList(Files.readString(process.resolve("cmdline"), StandardCharsets.UTF_8).split("\0"));
        } catch (IOException e) {
            return List.of(); // the process ended while we looked
        }
    }

    private static boolean isPidDirectory(Path path) {
        String name = path.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
    }

    @Override
    public String toString() {
        return "process group " + pgid;
    }
}
