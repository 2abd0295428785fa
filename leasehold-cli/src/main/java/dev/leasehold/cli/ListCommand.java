package dev.leasehold.cli;

import dev.leasehold.LockInfo;
import dev.leasehold.redis.RedisLockClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code leasehold list [PATTERN] [--json]}: the locks held right now whose names match a glob,
 * found with bounded {@code SCAN} steps (see {@link RedisLockClient#list(String)}).
 */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "Lists the locks held right now whose names match PATTERN (a Redis glob: *, ?, [abc]): "
                + "holder (redacted), remaining ttl, last fencing token, waiters. Uses SCAN, never KEYS.")
final class ListCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private RedisOption redis;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PATTERN", defaultValue = "*",
            description = "Glob over lock names (default: *, every lock).")
    private String pattern;

    @Option(names = "--json", description = "Print a JSON array of objects, as inspect --json prints one.")
    private boolean json;

    @Override
    public Integer call() {
        List<LockInfo> locks;
        try (RedisLockClient client = redis.connect()) {
            try {
                locks = client.list(pattern);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
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
