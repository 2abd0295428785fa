package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.util.HashMap;
import java.util.Map;

/** Server-side counters read through plain commands on a connection of their own. */
final class RedisStats {

    private RedisStats() {
    }

    /** Zeroes {@code INFO commandstats} and the other resettable counters. */
    static void reset(RedisServer server) {
        server.command("CONFIG", "RESETSTAT");
    }

    /** Drops every key, so the next run starts on an empty server. */
    static void flush(RedisServer server) {
        server.command("FLUSHALL");
    }

    /**
     * Calls per command since the last reset, from {@code INFO commandstats}. These include the
     * commands scripts run ({@code redis.call}), so they measure the server's work, not the
     * round trips a client made; {@link CommandProbe} counts those.
     */
    static Map<String, Long> commandCalls(RedisServer server) {
        return commandStat(server, "calls");
    }

    /**
     * Microseconds the server spent per command since the last reset, from {@code INFO commandstats}
     * ({@code usec}): for a script, its whole run, the commands it called included.
     */
    static Map<String, Long> commandMicros(RedisServer server) {
        return commandStat(server, "usec");
    }

    private static Map<String, Long> commandStat(RedisServer server, String field) {
        Map<String, Long> values = new HashMap<>();
        for (String line : ((String) server.command("INFO", "commandstats")).split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String name = line.substring("cmdstat_".length(), line.indexOf(':'));
            int start = line.indexOf(field + "=") + field.length() + 1;
            values.put(name, Long.parseLong(line.substring(start, line.indexOf(',', start))));
        }
        return values;
    }

    /** One numeric field of {@code INFO}, e.g. {@code ("stats", "total_reads_processed")}. */
    static double infoField(RedisServer server, String section, String field) {
        for (String line : ((String) server.command("INFO", section)).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return Double.parseDouble(line.substring(field.length() + 1).trim());
            }
        }
        throw new IllegalStateException("INFO " + section + " has no field " + field);
    }

    /**
     * The keys of database 0 from {@code INFO keyspace}: how many, how many have a TTL, and their
     * average TTL in ms (0 when none has one).
     */
    record Keyspace(long keys, long expires, long avgTtlMillis) {
        static final Keyspace EMPTY = new Keyspace(0, 0, 0);
    }

    /** {@code INFO keyspace} of database 0 ({@link Keyspace#EMPTY} when it holds no key). */
    static Keyspace keyspace(RedisServer server) {
        for (String line : ((String) server.command("INFO", "keyspace")).split("\r?\n")) {
            if (line.startsWith("db0:")) {
                Map<String, Long> fields = new HashMap<>();
                for (String field : line.substring("db0:".length()).trim().split(",")) {
                    String[] pair = field.split("=");
                    fields.put(pair[0], Long.parseLong(pair[1]));
                }
                return new Keyspace(fields.get("keys"), fields.get("expires"), fields.getOrDefault("avg_ttl", 0L));
            }
        }
        return Keyspace.EMPTY;
    }

    /** Bytes the server's allocator holds for data and overhead ({@code INFO memory used_memory}). */
    static long usedMemory(RedisServer server) {
        return (long) infoField(server, "memory", "used_memory");
    }

    /** Seconds of CPU the server process used so far (user + system, all threads). */
    static double serverCpuSeconds(RedisServer server) {
        return infoField(server, "cpu", "used_cpu_user") + infoField(server, "cpu", "used_cpu_sys");
    }

    /** The server's version string, e.g. {@code 7.0.15}. */
    static String version(RedisServer server) {
        for (String line : ((String) server.command("INFO", "server")).split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "unknown";
    }
}
