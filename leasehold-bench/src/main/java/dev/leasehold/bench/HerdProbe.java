package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.launcher.RespClient;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Counts, with {@code MONITOR}, what a herd of waiters costs the server between {@link #start}
 * and {@link #stop}: the commands clients sent (script-internal ones skipped, as in
 * {@link CommandProbe}), the calls of one script (the contender's acquire script: its attempts),
 * and the pub/sub messages the server delivered.
 *
 * <p>Deliveries: a {@code PUBLISH} (a client's or a script's) reaches every connection subscribed
 * to its channel at that moment, and no counter of the server says how many that was. The probe
 * takes the subscriber count of every channel in one atomic script ({@code PUBSUB CHANNELS} and
 * {@code PUBSUB NUMSUB}) at the start, follows every {@code SUBSCRIBE} and {@code UNSUBSCRIBE} in
 * the stream after it, and adds each publish's channel count. Pattern subscriptions are not
 * followed (no contender waits with one). The stream is in execution order, so this is exact as
 * long as no client disconnects while subscribed, which the benchmark's clients do not.
 *
 * <p>{@code MONITOR} slows the server down: probes run apart from timed measurements.
 */
final class HerdProbe implements AutoCloseable {

    /**
     * What a probe saw.
     *
     * @param clientCommands top-level commands by name (lower case), the probe's own left out
     * @param scriptCalls    calls of the watched script (by {@code EVAL} or {@code EVALSHA})
     * @param publishes      {@code PUBLISH}es run, those inside scripts included
     * @param deliveries     messages delivered to subscribers by those publishes
     * @param firstScript    the {@link #scriptKey} of the first script a client called, or null
     */
    record Counted(Map<String, Long> clientCommands, long scriptCalls, long publishes, long deliveries,
                   String firstScript) {

        long clientCommandsTotal() {
            return clientCommands.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private static final String SNAPSHOT = BenchLua.text("herd_subscribers.lua");

    private final RespClient monitor;
    private final RespClient control;
    private final String watchedScript;
    private final String startMarker;
    private final Map<String, Long> subscribers = new HashMap<>();

    private HerdProbe(RedisServer server, String watchedScript) {
        this.watchedScript = watchedScript;
        this.startMarker = "leasehold-bench herd probe " + System.nanoTime();
        this.monitor = RespClient.connect(server.host(), server.port());
        try {
            this.control = RespClient.connect(server.host(), server.port());
        } catch (RuntimeException e) {
            monitor.close();
            throw e;
        }
    }

    /**
     * Starts counting now.
     *
     * @param watchedScript the {@link #scriptKey} of the script whose calls to count, or null
     */
    static HerdProbe start(RedisServer server, String watchedScript) {
        HerdProbe probe = new HerdProbe(server, watchedScript);
        try {
            probe.monitor.setReadTimeout(Duration.ofSeconds(60));
            probe.monitor.call("MONITOR");
            List<?> counts = (List<?>) probe.control.call("EVAL", "-- " + probe.startMarker + "\n" + SNAPSHOT, "0");
            for (int i = 0; i + 1 < counts.size(); i += 2) {
                probe.subscribers.put((String) counts.get(i), (Long) counts.get(i + 1));
            }
            return probe;
        } catch (RuntimeException e) {
            probe.close();
            throw e;
        }
    }

    /**
     * Identifies a script call: {@code evalsha:<sha>} or {@code eval:<hash of the text>} (the same
     * script sent either way gets two keys), or null when the line calls no script.
     */
    static String scriptKey(MonitorLine line) {
        return switch (line.command()) {
            case "evalsha", "evalsha_ro" -> "evalsha:" + line.firstArg();
            case "eval", "eval_ro" -> "eval:" + Integer.toHexString(line.firstArg().hashCode());
            default -> null;
        };
    }

    /** Stops counting and returns what the server ran since {@link #start}. */
    Counted stop() {
        String endMarker = "leasehold-bench herd probe end " + System.nanoTime();
        control.call("ECHO", endMarker);
        Map<String, Long> commands = new TreeMap<>();
        Map<String, Set<String>> subscribedSince = new HashMap<>();
        long scriptCalls = 0;
        long publishes = 0;
        long deliveries = 0;
        String own = null;
        String firstScript = null;
        while (true) {
            MonitorLine line = MonitorLine.parse((String) monitor.read());
            if (own == null) {
                // Everything before the snapshot happened before the start.
                if (line.command().equals("eval") && line.firstArg().contains(startMarker)) {
                    own = line.source();
                }
                continue;
            }
            if (line.source().equals(own)) {
                if (line.command().equals("echo") && line.firstArg().equals(endMarker)) {
                    return new Counted(commands, scriptCalls, publishes, deliveries, firstScript);
                }
                continue;
            }
            if (!line.fromScript()) {
                commands.merge(line.command(), 1L, Long::sum);
                String script = scriptKey(line);
                if (firstScript == null) {
                    firstScript = script;
                }
                if (script != null && script.equals(watchedScript)) {
                    scriptCalls++;
                }
            }
            switch (line.command()) {
                case "subscribe", "ssubscribe" -> subscribe(line, subscribedSince);
                case "unsubscribe", "sunsubscribe" -> unsubscribe(line, subscribedSince);
                case "publish", "spublish" -> {
                    publishes++;
                    deliveries += subscribers.getOrDefault(line.firstArg(), 0L);
                }
                default -> {
                }
            }
        }
    }

    private void subscribe(MonitorLine line, Map<String, Set<String>> subscribedSince) {
        Set<String> channels = subscribedSince.computeIfAbsent(line.source(), source -> new HashSet<>());
        for (String channel : line.args()) {
            if (channels.add(channel)) {
                subscribers.merge(channel, 1L, Long::sum);
            }
        }
    }

    /**
     * A connection leaving channels; without arguments, every channel it subscribed to since the
     * start (its older subscriptions are not known by connection, so they are left counted).
     */
    private void unsubscribe(MonitorLine line, Map<String, Set<String>> subscribedSince) {
        Set<String> channels = subscribedSince.computeIfAbsent(line.source(), source -> new HashSet<>());
        List<String> leaving = line.args().isEmpty() ? List.copyOf(channels) : line.args();
        for (String channel : leaving) {
            channels.remove(channel);
            subscribers.computeIfPresent(channel, (name, count) -> count > 1 ? count - 1 : null);
        }
    }

    @Override
    public void close() {
        monitor.close();
        control.close();
    }
}
