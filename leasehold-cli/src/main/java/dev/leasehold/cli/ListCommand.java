package dev.leasehold.cli;

import dev.leasehold.LockInfo;
import dev.leasehold.engine.EngineLockClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code leasehold list [PATTERN] [--json]}: the locks held right now whose names match a glob,
 * of every kind, as {@link EngineLockClient#list(String)} finds them on the backend (on
 * Redis with bounded {@code SCAN} steps).
 */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "Lists the locks held right now whose names match PATTERN (a glob: *, ?, [abc]): kind, "
                + "holders (redacted), remaining ttl, last fencing token, waiters. On Redis it uses SCAN, never KEYS.")
final class ListCommand extends BackendCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "PATTERN", defaultValue = "*",
            description = "Glob over lock names (default: *, every lock).")
    private String pattern;

    @Option(names = "--json", description = "Print a JSON array of objects, as inspect --json prints one.")
    private boolean json;

    @Override
    public Integer call() {
        List<LockInfo> locks = administer("list locks", client -> client.list(pattern));
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(locks.stream().map(LockInfoFormat::json).collect(Collectors.joining(",", "[", "]")));
        } else {
            out.println(LockInfoFormat.table(locks));
        }
        out.flush();
        return ExitCodes.OK;
    }
}
