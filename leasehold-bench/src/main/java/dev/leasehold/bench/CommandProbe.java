package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.launcher.RespClient;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Counts the commands clients send while a short workload runs, with {@code MONITOR}. Unlike
 * {@code INFO commandstats}, which also counts every {@code redis.call} inside a script,
 * {@code MONITOR} marks script-internal commands with {@code [db lua]}; those are skipped, so
 * the count is what crossed the network: round trips, {@code SUBSCRIBE}s, retries.
 *
 * <p>{@code MONITOR} slows the server down, so probes run apart from the timed measurements.
 */
final class CommandProbe {

    private CommandProbe() {
    }

    /**
     * What a probe saw.
     *
     * @param commands   top-level commands by name (lower case)
     * @param operations what the workload reported doing: acquisitions, handoffs, ...
     * @param server     every command the server ran meanwhile by name, those inside scripts
     *                   included ({@code INFO commandstats}, the probe's own commands left out)
     */
    record Counted(Map<String, Long> commands, long operations, Map<String, Long> server) {

        long total() {
            return commands.values().stream().mapToLong(Long::longValue).sum();
        }

        double perOperation() {
            return (double) total() / operations;
        }

        /** Commands the server ran per operation, script-internal ones included. */
        double serverPerOperation() {
            return (double) server.values().stream().mapToLong(Long::longValue).sum() / operations;
        }
    }

    /** The probe's own commands, left out of the server-side count. */
    private static final java.util.Set<String> OWN = java.util.Set.of("monitor", "echo", "config|resetstat", "config",
            "info");

    /** The commands clients sent while {@code workload} ran; it returns how many operations it did. */
    static Counted count(RedisServer server, LongSupplier workload) {
        Map<String, Long> counts = new TreeMap<>();
        try (RespClient monitor = RespClient.connect(server.host(), server.port())) {
            monitor.setReadTimeout(Duration.ofSeconds(30));
            RedisStats.reset(server);
            monitor.call("MONITOR");
            long operations = workload.getAsLong();
            // Everything the workload sent is in the stream before this marker.
            String marker = "leasehold-bench-probe-end-" + System.nanoTime();
            server.command("ECHO", marker);
            while (true) {
                String line = (String) monitor.read();
                if (line.contains(marker)) {
                    Map<String, Long> serverCounts = new TreeMap<>(RedisStats.commandCalls(server));
                    serverCounts.keySet().removeIf(OWN::contains);
                    return new Counted(counts, operations, serverCounts);
                }
                if (!line.contains(" lua]")) {
                    counts.merge(commandName(line), 1L, Long::sum);
                }
            }
        }
    }

    /** {@code 1700000000.123456 [0 127.0.0.1:5000] "evalsha" "..."} gives {@code evalsha}. */
    private static String commandName(String line) {
        int start = line.indexOf("] \"") + 3;
        return line.substring(start, line.indexOf('"', start)).toLowerCase(Locale.ROOT);
    }
}
