package dev.leasehold.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The command {@code run} runs, in a process group of its own so that stopping it stops its
 * children too. It is started through {@code setsid(1)} (util-linux), which calls
 * {@code setsid()} and then execs, in place, a short bash prologue that sets up the
 * {@link Lifeline} and execs the command: a process the JVM has just spawned is never a group
 * leader, so setsid does not fork, and the command's pid is its group id.
 *
 * <p>The command inherits stdin, stdout and stderr. Being in its own session, it does not get
 * the terminal's Ctrl-C; {@code run} forwards that itself. Closing this object closes the
 * lifeline, which kills whatever is left of the group. Until then, a {@link LifelineFeed} keeps
 * the lifeline's deadlines in step with the lease.
 */
final class ChildProcess implements AutoCloseable {

    private static final long POLL_MILLIS = 50;
    /** The lifeline only has to wake up and call kill(2) once its FIFO is closed. */
    private static final Duration LIFELINE_PATIENCE = Duration.ofSeconds(2);

    private final Process process;
    private final Lifeline lifeline;
    private final LifelineFeed feed;
    private final ProcessGroup group;
    private final Consumer<String> report;
    private final AtomicReference<CompletableFuture<Void>> termination = new AtomicReference<>();
    /** When the termination sends SIGKILL, as a {@link System#nanoTime()} value; set before it starts. */
    private final AtomicReference<Long> killAt = new AtomicReference<>();

    private ChildProcess(Process process, Lifeline lifeline, LifelineFeed feed, Consumer<String> report) {
        this.process = process;
        this.lifeline = lifeline;
        this.feed = feed;
        this.group = new ProcessGroup(process.toHandle(), lifeline);
        this.report = report;
    }

    /**
     * Starts {@code command} with {@code environment} added to ours. Its lifeline is given its
     * first deadlines before the command starts, so no moment of the command's life is without.
     *
     * @param deadlines when the lifeline must stop the group unless told later times, asked
     *                  now and again; see {@link LifelineFeed#following}
     * @param report where to say what the termination sequence does
     * @throws CliException with {@link ExitCodes#CANNOT_EXECUTE} if setsid or bash cannot be started
     */
    static ChildProcess start(List<String> command, Map<String, String> environment,
                              Supplier<Lifeline.Deadlines> deadlines, Consumer<String> report) {
        Lifeline lifeline = Lifeline.create();
        ProcessBuilder builder = new ProcessBuilder(lifeline.wrap(command)).inheritIO();
        builder.environment().putAll(environment);
        try {
            Lifeline.Deadlines first = deadlines.get();
            lifeline.enforce(first);
            LifelineFeed feed = new LifelineFeed(lifeline, deadlines, first);
            ChildProcess child = new ChildProcess(builder.start(), lifeline, feed, report);
            feed.start();
            return child;
        } catch (IOException e) {
            lifeline.close();
            throw new CliException(ExitCodes.CANNOT_EXECUTE, "cannot start setsid (util-linux) and bash, which run "
                    + "the command in a process group of its own: " + e.getMessage());
        } catch (RuntimeException e) {
            lifeline.close();
            throw e;
        }
    }

    ProcessGroup group() {
        return group;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for the command to exit and returns its exit code (128 + N if signal N ended it).
     * Keeps waiting through interrupts: whoever wants it to end signals it instead.
     */
    int awaitExit() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return process.waitFor();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Stops the whole process group: SIGTERM now, SIGKILL if any member still runs after
     * {@code grace}. Same as {@link #terminateBy(long)} with a SIGKILL time {@code grace} from now.
     */
    CompletableFuture<Void> terminate(Duration grace) {
        return terminateBy(System.nanoTime() + grace.toNanos());
    }

    /**
     * Stops the whole process group: SIGTERM now, SIGKILL at {@code killAtNanos} (a
     * {@link System#nanoTime()} value) if any member still runs then. The first call runs the
     * sequence on the calling thread and returns when it is over; later calls return the same
     * future, and an earlier SIGKILL time they bring moves the SIGKILL forward: a Ctrl-C with a
     * long grace followed by a lease loss still ends the group by the lease's deadline. A lease
     * loss and a Ctrl-C that race end in one SIGTERM and at most one SIGKILL.
     */
    CompletableFuture<Void> terminateBy(long killAtNanos) {
        killAt.accumulateAndGet(killAtNanos,
                (current, offered) -> current == null || offered - current < 0 ? offered : current);
        CompletableFuture<Void> mine = new CompletableFuture<>();
        if (!termination.compareAndSet(null, mine)) {
            return termination.get();
        }
        try {
            runTermination();
        } finally {
            mine.complete(null);
        }
        return mine;
    }

    /** The termination sequence, if one was started. */
    Optional<CompletableFuture<Void>> termination() {
        return Optional.ofNullable(termination.get());
    }

    private void runTermination() {
        feed.sigtermSent(); // before sending it: the lifeline must not send a second one
        long termSent = System.nanoTime();
        send("TERM");
        try {
            while (anyAlive()) {
                // Re-read each round: a later caller may have moved the SIGKILL forward.
                long left = killAt.get() - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                long wait = Math.max(1, Math.min(POLL_MILLIS, TimeUnit.NANOSECONDS.toMillis(left)));
                // Waiting on the leader returns the moment it exits; after that, poll the group.
                if (!process.waitFor(wait, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                Thread.sleep(wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // no more patience: go straight to SIGKILL
        }
        if (anyAlive()) {
            report.accept(group + " still running " + Durations.format(Duration.ofNanos(System.nanoTime() - termSent))
                    + " after SIGTERM: sending SIGKILL");
            send("KILL");
        }
    }

    /**
     * Closes the lifeline: whatever is left of the group is killed, and this returns once the
     * lifeline has done so (or after a bound, should it be stopped).
     */
    @Override
    public void close() {
        feed.close();
        lifeline.close();
        group.awaitLifelineEnd(LIFELINE_PATIENCE);
    }

    private boolean anyAlive() {
        return process.isAlive() || group.hasLiveMembers();
    }

    /**
     * Signals the group. Right after start, setsid may not have created the group yet; then
     * only the process itself exists and is signalled directly.
     */
    private void send(String signal) {
        if (!group.signal(signal) && process.isAlive()) {
            if (signal.equals("KILL")) {
                process.destroyForcibly();
            } else {
                process.destroy();
            }
        }
    }
}
