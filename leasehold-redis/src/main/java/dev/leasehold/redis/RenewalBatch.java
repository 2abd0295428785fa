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
 */
final class RenewalBatch {

    /** Keys per script call: large enough to amortise the call, small enough not to stall Redis. */
    static final int CHUNK = 1_000;

    private record Pending(String key, String holder, String ttlMillis, CompletableFuture<Boolean> answer) {
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
        pending.add(new Pending(key, holder, Long.toString(ttl.toMillis()), answer));
        return answer;
    }

    /** Sends everything queued, one call per script group and chunk of {@link #CHUNK}. */
    void flush() {
        Map<Integer, List<Pending>> chunks = new HashMap<>();
        long renewals = 0;
        long calls = 0;
        Pending next;
        while ((next = pending.poll()) != null) {
            renewals++;
            List<Pending> chunk = chunks.computeIfAbsent(group.applyAsInt(next.key()), g -> new ArrayList<>());
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
            count(renewals, chunks.size(), calls);
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

    private void send(List<Pending> chunk) {
        String[] keys = new String[chunk.size()];
        String[] args = new String[chunk.size() * 2];
        for (int i = 0; i < chunk.size(); i++) {
            keys[i] = chunk.get(i).key();
            args[2 * i] = chunk.get(i).holder();
            args[2 * i + 1] = chunk.get(i).ttlMillis();
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
