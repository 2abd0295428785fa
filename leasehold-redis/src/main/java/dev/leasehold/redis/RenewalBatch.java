package dev.leasehold.redis;

import dev.leasehold.redis.internal.RedisScript;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * Collects the renewals the watchdog sends in one batch and sends them as one script call per
 * chunk ({@code renew_batch.lua}), so ten thousand leases renewed together cost ten calls, not ten
 * thousand. Each renewal still gets its own answer.
 */
final class RenewalBatch {

    /** Keys per script call: large enough to amortise the call, small enough not to stall Redis. */
    static final int CHUNK = 1_000;

    private record Pending(String key, String holder, String ttlMillis, CompletableFuture<Boolean> answer) {
    }

    private final Queue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final RedisAsyncCommands<String, String> commands;
    private final RedisScript script;
    private final Function<Throwable, Throwable> translate;

    RenewalBatch(RedisAsyncCommands<String, String> commands, RedisScript script, Function<Throwable, Throwable> translate) {
        this.commands = commands;
        this.script = script;
        this.translate = translate;
    }

    /** Queues one renewal; it is sent by the next {@link #flush()}. */
    CompletableFuture<Boolean> add(String key, String holder, Duration ttl) {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        pending.add(new Pending(key, holder, Long.toString(ttl.toMillis()), answer));
        return answer;
    }

    /** Sends everything queued, in chunks of {@link #CHUNK}. */
    void flush() {
        List<Pending> chunk = new ArrayList<>();
        Pending next;
        while ((next = pending.poll()) != null) {
            chunk.add(next);
            if (chunk.size() == CHUNK) {
                send(chunk);
                chunk = new ArrayList<>();
            }
        }
        if (!chunk.isEmpty()) {
            send(chunk);
        }
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
