package dev.leasehold.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.fail;

/**
 * What the tests read off {@code /proc} and the files their commands write, independently of
 * the code under test. Zombies do not count as running: on machines whose init does not reap
 * orphans, a killed grandchild stays a zombie forever, though it runs nothing.
 */
final class Processes {

    private Processes() {
    }

    /** Pids of the running (non-zombie) members of a process group. */
    static List<Long> runningMembers(long pgid) {
        List<Long> members = new ArrayList<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (name.chars().allMatch(Character::isDigit)) {
                    stat(Long.parseLong(name)).filter(s -> s.pgid() == pgid && s.running())
                            .ifPresent(s -> members.add(Long.parseLong(name)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return members;
    }

    /** Whether the process exists and is not a zombie. */
    static boolean isRunning(long pid) {
        return stat(pid).map(Stat::running).orElse(false);
    }

    /**
     * Polls until no member of the group runs and returns when that was first seen; fails the
     * test after {@code timeout}.
     */
    static Instant awaitNoRunningMembers(long pgid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (runningMembers(pgid).isEmpty()) {
                return Instant.now();
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        return fail("process group " + pgid + " still has running members after " + timeout + ": "
                + runningMembers(pgid));
    }

    /** Waits until {@code file} holds a complete line and returns it, stripped. */
    static String awaitLine(Path file, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                String content = Files.readString(file, StandardCharsets.UTF_8);
                if (content.endsWith("\n")) {
                    return content.strip();
                }
            } catch (IOException notYet) {
                // not written yet
            }
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        return fail("nothing was written to " + file + " within " + timeout);
    }

    private record Stat(char state, long pgid) {
        boolean running() {
            return state != 'Z' && state != 'X';
        }
    }

    private static Optional<Stat> stat(long pid) {
        try {
            String line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Optional.of(new Stat(fields[0].charAt(0), Long.parseLong(fields[2])));
        } catch (IOException gone) {
            return Optional.empty();
        }
    }
}
