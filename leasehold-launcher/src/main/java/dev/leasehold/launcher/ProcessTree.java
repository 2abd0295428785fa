package dev.leasehold.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A server process and every process it forked, for servers such as PostgreSQL that run one process
 * per connection (each in its own session, so no process group covers them): killing only the parent
 * would leave the children, and a SIGSTOP sent only to the parent would let them keep answering.
 */
final class ProcessTree {

    private static final long POLL_NANOS = 2_000_000;

    private ProcessTree() {
    }

    /** {@code root} and its live descendants, root first. */
    static List<ProcessHandle> members(ProcessHandle root) {
        List<ProcessHandle> members = new ArrayList<>();
        if (root.isAlive()) {
            members.add(root);
        }
        root.descendants().filter(ProcessHandle::isAlive).forEach(members::add);
        return members;
    }

    /**
     * Freezes {@code root} first, so it forks nothing more, then its descendants; returns once every
     * one is stopped (Linux), so whatever the caller does next happens while the tree is frozen.
     *
     * @return the processes stopped, to be resumed or killed later even if the root dies meanwhile
     * @throws IllegalStateException if {@code kill} fails, or a process does not stop within 2 s
     */
    static List<ProcessHandle> stop(ProcessHandle root) {
        Signals.stop(root.pid());
        List<ProcessHandle> members = members(root);
        send("STOP", members);
        long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        while (!members.stream().allMatch(ProcessTree::isStoppedOrGone)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the processes of pid " + root.pid() + " did not stop within 2 s");
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return members;
    }

    /**
     * Resumes the given processes with SIGCONT (those still alive).
     *
     * @throws IllegalStateException if {@code kill} keeps failing for processes that are still alive
     */
    static void cont(List<ProcessHandle> members) {
        for (int attempt = 1; ; attempt++) {
            try {
                send("CONT", members.stream().filter(ProcessHandle::isAlive).toList());
                return;
            } catch (IllegalStateException failed) {
                // A process may exit between the alive check and the kill (a database backend whose
                // client hung up): kill still signals every other pid, and the exited one needs no
                // resuming. Only a failure that repeats for live processes is one.
                if (attempt == 3) {
                    throw failed;
                }
            }
        }
    }

    /**
     * SIGKILLs {@code root}, its descendants and {@code alsoKill} (e.g. processes frozen earlier, which
     * may have lost their parent since), and waits until none is alive. The root is frozen first so
     * it cannot fork a process the kill would miss.
     *
     * @throws IllegalStateException if a process survives {@code timeout}
     */
    static void killAndWait(ProcessHandle root, List<ProcessHandle> alsoKill, Duration timeout) {
        List<ProcessHandle> targets = new ArrayList<>(alsoKill);
        if (root.isAlive()) {
            try {
                send("STOP", List.of(root));
            } catch (IllegalStateException e) {
                // it exited meanwhile: nothing more to fork
            }
            targets.addAll(members(root));
        }
        targets.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + timeout.toNanos();
        for (List<ProcessHandle> alive = alive(targets); !alive.isEmpty(); alive = alive(targets)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(alive.size() + " processes of pid " + root.pid()
                        + " still alive " + timeout + " after SIGKILL");
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    private static List<ProcessHandle> alive(List<ProcessHandle> processes) {
        return processes.stream().filter(p -> p.isAlive() && !isZombie(p)).toList();
    }

    /**
     * Sends {@code signal} (a name such as {@code INT}) to every one of {@code targets} with one {@code kill}.
     *
     * @throws IllegalStateException if {@code kill} fails
     */
    static void send(String signal, List<ProcessHandle> targets) {
        if (targets.isEmpty()) {
            return;
        }
        String[] command = Stream.concat(Stream.of("kill", "-" + signal),
                targets.stream().map(p -> Long.toString(p.pid()))).toArray(String[]::new);
        Exec.Result result;
        try {
            result = Exec.run(Duration.ofSeconds(5), command);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + signal, e);
        }
        if (!result.succeeded()) {
            throw new IllegalStateException(String.join(" ", command) + " failed (exit code "
                    + result.exitCode() + "): " + result.output().strip());
        }
    }

    private static boolean isStoppedOrGone(ProcessHandle process) {
        char state = state(process);
        return state == 'T' || state == 't' || state == 'Z' || state == '?';
    }

    /** A killed child of a parent that is gone waits for init to reap it, which may never happen in a container. */
    private static boolean isZombie(ProcessHandle process) {
        return state(process) == 'Z';
    }

    /** The state letter of {@code /proc/PID/stat}, which follows the parenthesised command name; {@code '?'} when gone. */
    private static char state(ProcessHandle process) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"), StandardCharsets.US_ASCII);
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (IOException e) {
            return '?';
        }
    }
}
