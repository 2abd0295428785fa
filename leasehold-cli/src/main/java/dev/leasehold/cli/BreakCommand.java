package dev.leasehold.cli;

import dev.leasehold.BrokenLock;
import dev.leasehold.LockInfo;
import dev.leasehold.engine.EngineLockClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

import java.io.Console;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code leasehold break NAME --reason TEXT [--yes]}: breaks a lock as an administrator, whatever
 * kind holds it (see {@link EngineLockClient#breakLock(String, String)}). Asks for confirmation on a
 * terminal; without one (a script, a pipe), {@code --yes} is required, so a stray invocation never
 * breaks a lock.
 */
@Command(name = "break", mixinStandardHelpOptions = true,
        description = {"Breaks the lock NAME: removes its holders (every reader or permit too), advances the "
                + "fence so every later token exceeds the broken holders', records who broke it and why (on "
                + "Redis in {NAME}:broken, for 24 h) and wakes the waiters.",
                "The broken holder keeps running until its next renewal (or, for a fixed lease, its deadline) "
                        + "tells it: a resource that does not check fencing tokens can see its writes and the "
                        + "next holder's. Exit code " + ExitCodes.NOT_HELD + " when the lock was free."})
final class BreakCommand extends BackendCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME", description = "The lock name.")
    private String name;

    @Option(names = "--reason", paramLabel = "TEXT", required = true,
            description = "Why the lock is broken; recorded with your user@host.")
    private String reason;

    @Option(names = "--yes", description = "Do not ask for confirmation; required when there is no terminal to ask on.")
    private boolean yes;

    @Override
    public Integer call() {
        Console console = System.console();
        if (!yes && console == null) {
            throw new ParameterException(spec.commandLine(),
                    "no terminal to confirm on (stdin or stdout is redirected): pass --yes to break '" + name + "'");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        return administer("break a lock", client -> breakLock(client, console, out, err));
    }

    private int breakLock(EngineLockClient locks, Console console, PrintWriter out, PrintWriter err) {
        if (!yes) {
            LockInfo info = locks.inspect(name);
            if (!info.isHeld()) {
                err.println("Lock '" + name + "' is free; nothing to break.");
                err.flush();
                return ExitCodes.NOT_HELD;
            }
            String answer = console.readLine("Break lock '%s' held by %s (%s%s)? [y/N] ", name,
                    LockInfoFormat.holders(info), info.kind().isPresent() ? LockInfoFormat.kind(info) + ", " : "",
                    info.remaining().map(left -> Durations.format(left) + " left").orElse("no ttl"));
            if (answer == null || !answer.trim().toLowerCase(Locale.ROOT).startsWith("y")) {
                err.println("Not broken.");
                err.flush();
                return ExitCodes.NOT_CONFIRMED;
            }
        }
        Optional<BrokenLock> broken = locks.breakLock(name, reason);
        if (broken.isEmpty()) {
            err.println("Lock '" + name + "' is free; nothing to break.");
            err.flush();
            return ExitCodes.NOT_HELD;
        }
        out.println("broke '" + name + "': holder " + broken.get().holder() + " removed, fence now "
                + broken.get().fence() + "; the next token will exceed it");
        out.flush();
        return ExitCodes.OK;
    }
}
