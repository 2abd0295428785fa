package dev.leasehold.cli;

import dev.leasehold.LockInfo;
import dev.leasehold.engine.EngineLockClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

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
final class InspectCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private RedisOption redis;

    @Mixin
    private BackendOption backend;

    @Parameters(index = "0", paramLabel = "NAME", description = "The lock name.")
    private String name;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    private boolean json;

    @Override
    public Integer call() {
        LockInfo info;
        try (EngineLockClient client = backend.connect(redis)) {
            try {
                info = client.inspect(name);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            } catch (UnsupportedOperationException e) {
                throw backend.unsupported("inspect a lock", e);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(json ? LockInfoFormat.json(info) : LockInfoFormat.text(info));
        out.flush();
        return ExitCodes.OK;
    }
}
