package dev.leasehold.redis;

import dev.leasehold.redis.internal.RedisScript;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Collects the renewals the watchdog sends in one batch and sends them as one script call per
 * chunk ({@code renew_batch.lua}), so ten thousand leases renewed together cost ten calls, not ten
 * thousand. Each renewal still gets its own answer. A call only carries keys of one script group
 * ({@link dev.leasehold.redis.internal.RedisDeployment#scriptGroup}): on a Cluster a script may only
 * touch one hash slot, so a batch costs one call per slot it touches (and per chunk), never one per lease.
 * A call also carries one ttl, sent once for all its leases (two arguments per lease, not three): leases
 * of different ttls renewed together go in separate calls.
 */
final class RenewalBatch {

    /** Keys per script call: large enough to amortise the call, small enough not to stall Redis. */
    static final int CHUNK = 1_000;

    private record Pending(String key, String holder, long ttlMillis, CompletableFuture<Boolean> answer) {
    }

    /** What the leases of one call share: their script group and their ttl. */
    private record Chunk(int group, long ttlMillis) {
    }

    private final Queue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final RedisClusterAsyncCommands<String, String> commands;
    private final RedisScript script;
    private final Function<Throwable, Throwable> translate;
    private final ToIntFunction<String> group;
    /** What the flushes so far cost, counted once per flush under the batch's monitor: a snapshot never splits one. */
    private Stats totals = new Stats(0, 0, 0, 0);

    RenewalBatch(RedisClusterAsyncCommands<String, String> commands, RedisScript script, ToIntFunction<String> group,
                 Function<Throwable, Throwable> translate) {
        this.commands = commands;
        this.script = script;
        this.group = group;
        this.translate = translate;
    }

    /** Queues one renewal; it is sent by the next {@link #flush()}. */
    CompletableFuture<Boolean> add(String key, String holder, Duration ttl) {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        pending.add(new Pending(key, holder, ttl.toMillis(), answer));
        return answer;
    }

    /** Sends everything queued, one call per script group, ttl and chunk of {@link #CHUNK}. */
    void flush() {
        Map<Chunk, List<Pending>> chunks = new HashMap<>();
        long renewals = 0;
        long calls = 0;
        Pending next;
        while ((next = pending.poll()) != null) {
            renewals++;
            List<Pending> chunk = chunks.computeIfAbsent(new Chunk(group.applyAsInt(next.key()), next.ttlMillis()),
                    c -> new ArrayList<>());
            chunk.add(next);
            if (chunk.size() == CHUNK) {
                send(List.copyOf(chunk));
                calls++;
                chunk.clear();
            }
        }
        for (List<Pending> chunk : chunks.values()) {
            if (!chunk.isEmpty()) {
                send(chunk);
                calls++;
            }
        }
        if (!chunks.isEmpty()) {
            count(renewals, chunks.keySet().stream().mapToInt(Chunk::group).distinct().count(), calls);
        }
    }

    /** What the flushes so far cost, for tests and diagnostics. */
    record Stats(long flushes, long renewals, long groups, long calls) {
    }

    synchronized Stats stats() {
        return totals;
    }

    private synchronized void count(long renewals, long groups, long calls) {
        totals = new Stats(totals.flushes() + 1, totals.renewals() + renewals, totals.groups() + groups,
                totals.calls() + calls);
    }

    /** One call for leases of one group and ttl: KEYS their keys, ARGV the ttl then their holder ids. */
    private void send(List<Pending> chunk) {
        String[] keys = new String[chunk.size()];
        String[] args = new String[chunk.size() + 1];
        args[0] = Long.toString(chunk.get(0).ttlMillis());
        for (int i = 0; i < chunk.size(); i++) {
            keys[i] = chunk.get(i).key();
            args[i + 1] = chunk.get(i).holder();
        }
        script.<List<Object>>run(commands, ScriptOutputType.MULTI, keys, args).whenComplete((extended, error) -> {
            for (int i = 0; i < chunk.size(); i++) {
                if (error != null) {
                    chunk.get(i).answer().completeExceptionally(translate.apply(error));
                } else {
                    chunk.get(i).answer().complete((Long) extended.get(i) == 1L);
                }
            }
        });
    }
}
