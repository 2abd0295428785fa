package dev.leasehold.cli;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockInterruptedException;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.engine.EngineLockClient;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One {@code leasehold run}: wait for the lock, run the command under it, stop the command if
 * the lease is lost, release the lock when the command exits, however it exits.
 *
 * <p>Three threads meet here. The main thread acquires, starts the command, waits for it and
 * releases. A {@link LeaseWatch} thread stops the command when the lease is being lost. A
 * shutdown hook (Ctrl-C, SIGTERM, SIGHUP to leasehold) stops the command, or abandons the
 * acquisition if it is still waiting, and holds the JVM open until the lock is released. Each
 * hand-over between them is a volatile write followed by a read of the other side's flag, so
 * whichever side comes second sees the first.
 */
final class LockedRun {

    /** Environment variable carrying the lock name to the command. */
    static final String LOCK_VARIABLE = "LEASEHOLD_LOCK";
    /** Environment variable carrying the fencing token to the command. */
    static final String TOKEN_VARIABLE = "LEASEHOLD_TOKEN";

    /**
     * How long the shutdown hook waits, besides the grace, for the main thread to clean up: an
     * abandoned acquisition and a release each take at most one server call (3 s by default).
     */
    private static final Duration CLEANUP_PATIENCE = Duration.ofSeconds(7);

    /** A command that signal N ended exits 128 + N, as a shell reports it. */
    private static final int SIGNALLED = 128;
    private static final int SIGKILL = 9;
    private static final int SIGTERM = 15;

    private enum Phase { WAITING, RUNNING, ABANDONED }

    private final EngineLockClient client;
    private final DistributedLock lock;
    private final List<String> command;
    private final Duration grace;
    private final Duration wait;
    private final boolean quiet;
    private final PrintWriter err;
    private final Thread mainThread = Thread.currentThread();
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.WAITING);
    private final AtomicBoolean terminatedForLoss = new AtomicBoolean();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private volatile boolean signalled;
    private volatile ChildProcess child;

    /** @param wait how long to wait for the lock, or {@code null} for as long as it takes */
    LockedRun(EngineLockClient client, DistributedLock lock, List<String> command, Duration grace, Duration wait,
              boolean quiet, PrintWriter err) {
        this.client = client;
        this.lock = lock;
        this.command = List.copyOf(command);
        this.grace = grace;
        this.wait = wait;
        this.quiet = quiet;
        this.err = err;
    }

    /** Runs it all on the calling thread; returns the exit code. */
    int execute() {
        Thread hook = new Thread(this::onShutdown, "leasehold-signal-forwarder");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            Lease lease = acquire();
            if (lease == null) {
                return ExitCodes.NOT_OBTAINED;
            }
            try {
                return runUnder(lease);
            } finally {
                release(lease);
            }
        } finally {
            finished.complete(null);
        }
    }

    /** The lease, or {@code null} if it was not obtained in time or a signal ended the wait. */
    private Lease acquire() {
        Lease lease;
        // try-with-resources closes the status line before a catch block prints.
        try (WaitStatus status = new WaitStatus(client, lock.name(), StatusLine.onStderr(err), wait)) {
            if (!quiet) {
                status.start();
            }
            lease = wait == null ? lock.acquire() : lock.acquire(wait);
        } catch (LockTimeoutException e) {
            if (!quiet) {
                say("lock '" + lock.name() + "' not obtained" + (wait.isZero() ? "" : " within " + Durations.format(wait))
                        + holderNow() + "; the command did not run");
            }
            return null;
        } catch (LockInterruptedException e) {
            Thread.interrupted(); // the shutdown hook asked; the acquisition has been cleaned up
            say("stopped while waiting for lock '" + lock.name() + "'; nothing is held");
            return null;
        }
        if (!phase.compareAndSet(Phase.WAITING, Phase.RUNNING)) {
            // A signal arrived just as the lock was granted: give it back, run nothing.
            release(lease);
            Thread.interrupted();
            return null;
        }
        if (!quiet) {
            say("acquired lock '" + lock.name() + "' (token " + lease.token() + ", ttl "
                    + Durations.format(lock.options().ttl()) + ")");
        }
        return lease;
    }

    /**
     * How long the lease lives without a renewal: the ttl, or less when the backend grants less (a
     * ZooKeeper session: the engine's local deadline is the earlier of the two). The SIGTERM and
     * SIGKILL margins are fractions of it, so the command is stopped before the shorter one ends.
     */
    private Duration lifetime(Lease lease) {
        Duration left = lease.remaining();
        Duration ttl = lock.options().ttl();
        // A lease all but gone keeps the ttl's margins, which stop the command at once.
        return left.compareTo(ttl) < 0 && left.compareTo(RunCommand.MIN_TTL.dividedBy(10)) > 0 ? left : ttl;
    }

    private int runUnder(Lease lease) {
        Duration lifetime = lifetime(lease);
        // Closed before the lock is released: what the command left in its group dies first.
        try (ChildProcess started = ChildProcess.start(command, Map.of(
                        LOCK_VARIABLE, lease.lockName(),
                        TOKEN_VARIABLE, Long.toString(lease.token())),
                LifelineFeed.following(lease, lifetime, grace), this::say)) {
            child = started;
            if (signalled) {
                started.terminate(grace); // the shutdown hook ran before it could see the command
            }
            int exitCode;
            try (LeaseWatch watch = new LeaseWatch(lease, lifetime, grace, client.describe(),
                    loss -> onLeaseLoss(started, loss))) {
                watch.start();
                exitCode = started.awaitExit();
            }
            // Let a SIGKILL step that is under way finish, so nothing of the group outlives us.
            started.termination().ifPresent(CompletableFuture::join);
            if (started.group().hasLiveMembers()) {
                say("the command exited but left processes running in " + started.group()
                        + ": killing them, as they would run on without the lock");
            }
            if (terminatedForLoss.get()) {
                say("the command was stopped because the lease was lost (its exit code was " + exitCode + ")");
                return ExitCodes.LEASE_LOST;
            }
            if (stoppedByLifeline(lease, exitCode)) {
                say("lease on '" + lease.lockName() + "' (token " + lease.token() + ") ran out while leasehold "
                        + "could not act (was it paused?); the lifeline stopped the command (its exit code was "
                        + exitCode + ")");
                return ExitCodes.LEASE_LOST;
            }
            return exitCode;
        }
    }

    /**
     * Whether the command ended by the lifeline's SIGTERM or SIGKILL, on the lease's schedule,
     * with LeaseWatch too late to do it: leasehold was paused, and nothing of it ran in time.
     * Told by its outcome: the lease has run out, and the command ended by one of those signals.
     */
    private static boolean stoppedByLifeline(Lease lease, int exitCode) {
        return !lease.isValid() && (exitCode == SIGNALLED + SIGTERM || exitCode == SIGNALLED + SIGKILL);
    }

    private void onLeaseLoss(ChildProcess started, LeaseWatch.Loss loss) {
        if (!started.isAlive()) {
            return; // it finished while the lease was still valid
        }
        terminatedForLoss.set(true);
        String when = loss.beforeDeadline().isZero() ? ""
                : ", " + loss.beforeDeadline().toMillis() + " ms before its local deadline";
        Duration untilKill = Duration.ofNanos(Math.max(0, loss.killAtNanos() - System.nanoTime()));
        say(loss.reason() + ": sending SIGTERM to " + started.group() + when + "; SIGKILL "
                + (untilKill.isZero() ? "at once" : "in " + Durations.format(untilKill)) + " if it still runs");
        started.terminateBy(loss.killAtNanos());
    }

    /**
     * The shutdown hook: ends the wait or the command, then keeps the JVM alive until the main
     * thread has released the lock. The JVM then exits with the signal's status (130 for
     * Ctrl-C, 143 for SIGTERM), as a shell would report it.
     */
    private void onShutdown() {
        if (finished.isDone()) {
            return; // an ordinary exit: everything is cleaned up already
        }
        signalled = true;
        if (phase.compareAndSet(Phase.WAITING, Phase.ABANDONED)) {
            mainThread.interrupt(); // the acquisition cleans up what it took, then returns
        } else {
            ChildProcess running = child;
            if (running != null && running.isAlive()) {
                say("passing the signal on: sending SIGTERM to " + running.group());
                running.terminate(grace);
            }
        }
        try {
            finished.get(grace.plus(CLEANUP_PATIENCE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            say("could not finish cleaning up; the lock expires within its ttl");
        }
    }

    private void release(Lease lease) {
        try {
            ReleaseStatus status = lease.release();
            if (!quiet && status == ReleaseStatus.RELEASED) {
                say("released lock '" + lease.lockName() + "'");
            }
        } catch (LeaseholdException e) {
            say("could not release lock '" + lease.lockName() + "' (" + e.getMessage() + "); it expires within "
                    + Durations.format(lock.options().ttl()));
        }
    }

    /**
     * Who holds the lock now, for the "not obtained" message. No count of waiters: this
     * acquisition's own registration may or may not be gone yet, so the count could include it.
     */
    private String holderNow() {
        try {
            return ": " + WaitStatus.holding(client.inspect(lock.name()));
        } catch (LeaseholdException e) {
            return ": its holder could not be read";
        } catch (UnsupportedOperationException e) {
            return ""; // the backend cannot tell
        }
    }

    private void say(String message) {
        err.println("leasehold: " + Redaction.credentialsRemoved(message));
        err.flush();
    }
}
