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
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A POSIX process group, addressed by its id: the unit {@code run} stops when a lease is lost,
 * so that a shell's background jobs and a script's children stop with it. The JDK can signal
 * one process but not a group, so this uses {@code kill(1)} and reads {@code /proc}.
 *
 * <p>A group id is a pid, and Linux hands a number out again once no process uses it as a pid,
 * group id or session id. So the id is only ours while something of ours <em>pins</em> it: the
 * leader until the JVM has reaped it, or the group's {@link Lifeline}, which lives until
 * leasehold is done with the group. Once neither does, the group counts as ended for good: it
 * has no live members and is never signalled again, though another group may carry the number.
 * Checking the pin <em>after</em> reading {@code /proc} makes what was read ours.
 */
final class ProcessGroup {

    private static final long KILL_COMMAND_TIMEOUT_SECONDS = 5;
    private static final long POLL_MILLIS = 10;

    private final long pgid;
    private final ProcessHandle leader;
    private final Lifeline lifeline;
    /** The lifeline process once seen; its start time tells it from a later process with its pid. */
    private volatile Member lifelineProcess;
    private volatile boolean ended;

    ProcessGroup(ProcessHandle leader, Lifeline lifeline) {
        this.pgid = leader.pid();
        this.leader = leader;
        this.lifeline = lifeline;
    }

    long id() {
        return pgid;
    }

    /**
     * Sends {@code signal} (a name such as {@code TERM} or {@code KILL}) to every member.
     *
     * @return false if the signal could not be sent, typically because the group has no member,
     *         or was not, because the group ended
     */
    boolean signal(String signal) {
        if (!pinned()) {
            return false;
        }
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
        if (ended) {
            return false;
        }
        boolean live;
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), ProcessGroup::isPidDirectory)) {
            live = scan(processes);
        } catch (IOException e) {
            // Without /proc there is nothing to read; "kill -0" still tells if any member exists.
            return signal("0");
        }
        return pinned() && live;
    }

    /** Waits up to {@code timeout} for the lifeline to end, e.g. after its FIFO was closed. */
    void awaitLifelineEnd(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (lifelineRunning() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS));
        }
    }

    private boolean lifelineRunning() {
        if (lifelineProcess == null && !ended) {
            hasLiveMembers(); // finds it, if it is there
        }
        Member seen = lifelineProcess;
        return seen != null && seen.isRunningIn(pgid);
    }

    /** Reads the members; remembers the lifeline when it comes across it. */
    private boolean scan(DirectoryStream<Path> processes) {
        boolean live = false;
        for (Path process : processes) {
            long pid = Long.parseLong(process.getFileName().toString());
            Optional<Stat> stat = Stat.read(pid);
            if (stat.isEmpty() || stat.get().pgid() != pgid || !stat.get().running()) {
                continue;
            }
            if (lifelineProcess == null && lifeline.isLifeline(commandLine(pid))) {
                lifelineProcess = new Member(pid, stat.get().startTime());
            } else if (!new Member(pid, stat.get().startTime()).equals(lifelineProcess)) {
                live = true;
            }
        }
        return live;
    }

    /** Whether the id is still ours; once it is not, it never is again. */
    private boolean pinned() {
        if (ended) {
            return false;
        }
        Member seen = lifelineProcess;
        if (leader.isAlive() || (seen != null && seen.isRunningIn(pgid))) {
            return true;
        }
        ended = true;
        return false;
    }

    private static List<String> commandLine(long pid) {
        try {
            String raw = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"), StandardCharsets.UTF_8);
            return Arrays.asList(raw.split("\0"));
        } catch (IOException e) {
            return List.of(); // the process ended while we looked
        }
    }

    private static boolean isPidDirectory(Path path) {
        String name = path.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
    }

    /** A process known by its pid and start time, which together name it for good. */
    private record Member(long pid, long startTime) {
        boolean isRunningIn(long pgid) {
            return Stat.read(pid).filter(s -> s.startTime() == startTime && s.pgid() == pgid && s.running()).isPresent();
        }
    }

    /** The fields of {@code /proc/PID/stat} this class needs. */
    private record Stat(char state, long pgid, long startTime) {

        boolean running() {
            return state != 'Z' && state != 'X';
        }

        static Optional<Stat> read(long pid) {
            String line;
            try {
                line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                return Optional.empty(); // the process ended while we looked
            }
            // "pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
            // utime stime cutime cstime priority nice num_threads itrealvalue starttime ...": comm
            // may contain spaces and parentheses, so parse from the last ')'.
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ", 21);
            return Optional.of(new Stat(fields[0].charAt(0), Long.parseLong(fields[2]), Long.parseLong(fields[19])));
        }
    }

    @Override
    public String toString() {
        return "process group " + pgid;
    }
}
