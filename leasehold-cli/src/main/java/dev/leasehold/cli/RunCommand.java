package dev.leasehold.cli;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockOptions;
import dev.leasehold.LockClient;
import dev.leasehold.engine.EngineLockClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code leasehold run NAME [options] -- CMD [ARGS...]}: runs a command while holding a lock,
 * like {@code flock(1)} across machines. This class holds the options and checks them; the run
 * itself is a {@link LockedRun}.
 */
@Command(name = "run",
        customSynopsis = "leasehold run [OPTIONS] NAME -- CMD [ARGS...]",
        descriptionHeading = "%n",
        parameterListHeading = "%n",
        optionListHeading = "%nOptions:%n",
        description = {
                "Runs CMD while holding the lock NAME, like flock(1) across machines.",
                "CMD gets LEASEHOLD_LOCK and LEASEHOLD_TOKEN (the fencing token) in its environment, "
                        + "inherits stdin, stdout and stderr, and its exit code becomes ours. If the lease is "
                        + "being lost, CMD's whole process group gets SIGTERM --grace before the lease's local "
                        + "deadline (at once if less is left, at most ttl/2 before it) and SIGKILL just before "
                        + "the deadline: it is dead by then, whatever --grace. Ctrl-C or SIGTERM to leasehold "
                        + "is passed on to CMD (SIGKILL after --grace); the lock is released when CMD exits. "
                        + "If leasehold dies (even by SIGKILL), CMD's process group is killed with it; so is "
                        + "whatever CMD leaves running in its group when it exits.",
                "If leasehold is alive but cannot act (SIGSTOP, a long GC pause, a throttled container), "
                        + "a watcher in CMD's group, the lifeline, holds the lease's deadline itself: told of "
                        + "each renewal, and hearing of none, it sends SIGTERM a little after leasehold would "
                        + "(ttl/10) and SIGKILL before the deadline; leasehold exits 79 when it resumes.",
                "Not covered: a process that leaves CMD's group (setsid, a daemon's double fork) escapes "
                        + "both the lease-loss SIGTERM/SIGKILL and the lifeline; a lifeline that is itself "
                        + "stopped (a frozen cgroup) does nothing. Guard writes with LEASEHOLD_TOKEN."},
        footerHeading = "%nExit codes:%n",
        footer = {
                "  CMD's own   CMD ran; 128+N if signal N ended it",
                "  64          usage error",
                "  69          the backend (--backend) is unreachable, or it refused the credentials",
                "  75          lock not obtained within --wait (or held by --hold-at-least of an earlier "
                        + "run); CMD did not run",
                "  79          lease lost while CMD ran; CMD was terminated",
                "  126, 127    CMD could not be executed, or was not found"},
        mixinStandardHelpOptions = true)
final class RunCommand extends BackendCommand implements Callable<Integer> {

    /** Shorter leases leave no time to stop the command before they end. */
    static final Duration MIN_TTL = Duration.ofSeconds(1);

    @Parameters(index = "0", paramLabel = "NAME", description = "The lock name, e.g. nightly-report or order:123.")
    private String name;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "CMD",
            description = "The command and its arguments, after --.")
    private List<String> command = new ArrayList<>();

    @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "30s",
            description = "Lease time, renewed every ttl/3 while CMD runs; if CMD's host dies, the lock "
                    + "frees itself after this (default: ${DEFAULT-VALUE}). With --backend zookeeper it is also "
                    + "the session timeout asked for (at most 10m); the lease then lasts the shorter of the ttl "
                    + "and what the session grants, and is renewed more often if that is shorter.")
    private Duration ttl;

    @Option(names = "--wait", paramLabel = "DURATION",
            description = "How long to wait for the lock; 0 gives up at once, e.g. for a cron job that must "
                    + "run on one machine only (default: wait as long as it takes).")
    private Duration wait;

    @Option(names = "--hold-at-least", paramLabel = "DURATION",
            description = "Keep the lock held until this long after it was acquired, even if CMD ends "
                    + "sooner; the lock then frees itself on the server, even if this host dies. With "
                    + "--wait 0, a cron job whose hosts' clocks fire a moment apart then runs once, "
                    + "not once per host (default: free the lock when CMD exits).")
    private Duration holdAtLeast;

    @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "10s",
            description = "Time between SIGTERM and SIGKILL when CMD must stop (default: ${DEFAULT-VALUE}); "
                    + "shortened to what is left of the lease when the lease is being lost.")
    private Duration grace;

    @Option(names = {"-q", "--quiet"},
            description = "Say nothing unless something goes wrong: no waiting line, no acquired/released "
                    + "lines, no message when the lock was not obtained (the exit code tells).")
    private boolean quiet;

    @Override
    public Integer call() {
        validate();
        try (EngineLockClient client = backend.connect(redis, ttl)) {
            return new LockedRun(client, lock(client), command, grace, wait, quiet, spec.commandLine().getErr())
                    .execute();
        }
    }

    private void validate() {
        if (command.isEmpty()) {
            throw usage("missing command: give it after --, e.g. leasehold run " + name + " -- CMD [ARGS...]");
        }
        if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(LockOptions.MAX_TTL) > 0) {
            throw usage("--ttl must be between " + Durations.format(MIN_TTL) + " and "
                    + Durations.format(LockOptions.MAX_TTL) + ", was " + Durations.format(ttl));
        }
        if (holdAtLeast != null && (holdAtLeast.compareTo(Duration.ofMillis(1)) < 0
                || holdAtLeast.compareTo(LockOptions.MAX_HOLD) > 0)) {
            throw usage("--hold-at-least must be between 1ms and " + Durations.format(LockOptions.MAX_HOLD)
                    + ", was " + Durations.format(holdAtLeast));
        }
        if (wait != null && wait.compareTo(DistributedLock.MAX_WAIT) > 0) {
            throw usage("--wait must be at most " + DistributedLock.MAX_WAIT.toDays() + " days");
        }
    }

    private DistributedLock lock(LockClient client) {
        try {
            LockOptions options = LockOptions.watchdog(ttl);
            return client.lock(name, holdAtLeast == null ? options : options.holdAtLeast(holdAtLeast));
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
