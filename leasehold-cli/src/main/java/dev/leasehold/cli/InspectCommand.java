package dev.leasehold.cli;

import dev.leasehold.LockInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code leasehold inspect NAME [--json]}: one snapshot of a lock, whatever kind holds it: its
 * kind, holders (redacted: a full holder id would let anyone release the lock), remaining ttl,
 * last fencing token and live waiters.
 */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = "Shows what holds the lock NAME: its kind (lock, fair_lock, read, write, semaphore), "
                + "its holders (redacted), the remaining ttl, the last fencing token issued and the number "
                + "of waiters.")
final class InspectCommand extends BackendCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME", description = "The lock name.")
    private String name;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    private boolean json;

    @Override
    public Integer call() {
        LockInfo info = administer("inspect a lock", client -> client.inspect(name));
        PrintWriter out = spec.commandLine().getOut();
        out.println(json ? LockInfoFormat.json(info) : LockInfoFormat.text(info));
        out.flush();
        return ExitCodes.OK;
    }
}
