package dev.leasehold.redis;

import dev.leasehold.redis.internal.RedisScript;
import dev.leasehold.spi.RenewalRound;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;

/**
 * Sends renewals as one script call per chunk ({@code renew_batch.lua} or {@code renew_members.lua}),
 * so ten thousand leases renewed together cost ten calls, not ten thousand: the watchdog's rounds
 * ({@link #send}) at once, explicit extensions ({@link #add}) at the next {@link #flush()}.
 *
 * <p>A call only carries keys of one script group
 * ({@link dev.leasehold.redis.internal.RedisDeployment#scriptGroup}): on a Cluster a script may only
 * touch one hash slot, so a round costs one call per slot it touches (and per chunk), never one per
 * lease. A call also carries one ttl, sent once for all its leases (two arguments per lease, not
 * three): leases of different ttls renewed together go in separate calls. The script answers with
 * the positions of the leases it did not extend, usually none, and each lease is answered through its
 * round from that one reply: no future, callback or error object per lease.
 */
final class RenewalBatch {

    /** Keys per script call: large enough to amortise the call, small enough not to stall Redis. */
    static final int CHUNK = 1_000;

    /** What the leases of one call share: their script group and their ttl. */
    private record Chunk(int group, long ttlMillis) {
    }

    private final Queue<RenewalRound> queued = new ConcurrentLinkedQueue<>();
    private final RedisClusterAsyncCommands<String, String> commands;
    private final RedisScript script;
    private final Function<Throwable, Throwable> translate;
    private final ToIntFunction<String> group;
    /** What the sends so far cost, counted once per round or flush under the batch's monitor: a snapshot never splits one. */
    private Stats totals = new Stats(0, 0, 0, 0);

    RenewalBatch(RedisClusterAsyncCommands<String, String> commands, RedisScript script, ToIntFunction<String> group,
                 Function<Throwable, Throwable> translate) {
        this.commands = commands;
        this.script = script;
        this.group = group;
        this.translate = translate;
    }

    /** Queues one renewal of the lease held at {@code key}; it is sent by the next {@link #flush()}. */
    CompletableFuture<Boolean> add(String key, String holder, Duration ttl) {
        OneRenewal renewal = new OneRenewal(key, holder, ttl);
        queued.add(renewal);
        return renewal.answer;
    }

    /** Sends everything {@link #add}ed so far, one call per script group, ttl and chunk of {@link #CHUNK}. */
    void flush() {
        Calls calls = new Calls(1);
        RenewalRound next;
        while ((next = queued.poll()) != null) {
            calls.add(next, 0, next.name(0)); // a queued renewal's name is already its key
        }
        calls.finish();
    }

    /**
     * Sends every lease of {@code round} now, one call per script group, ttl and chunk of {@link #CHUNK},
     * and answers each through the round.
     *
     * @param keyOf the key that holds the lease of a lock name
     */
    void send(RenewalRound round, UnaryOperator<String> keyOf) {
        Calls calls = new Calls(round.size());
        for (int i = 0; i < round.size(); i++) {
            calls.add(round, i, keyOf.apply(round.name(i)));
        }
        calls.finish();
    }

    /** What the sends so far cost, for tests and diagnostics: each round and each flush counts as one flush. */
    record Stats(long flushes, long renewals, long groups, long calls) {
    }

    synchronized Stats stats() {
        return totals;
    }

    private synchronized void count(long renewals, long groups, long calls) {
        totals = new Stats(totals.flushes() + 1, totals.renewals() + renewals, totals.groups() + groups,
                totals.calls() + calls);
    }

    /** The calls of one round or flush: leases grouped by chunk, each chunk sent when full or at the end. */
    private final class Calls {

        private final Map<Chunk, Call> open = new HashMap<>();
        /** How many leases a call is sized for at first: the round's, up to a chunk. */
        private final int expected;
        /** The call the previous lease joined: the leases of a round almost always share group and ttl. */
        private Call last;
        private long renewals;
        private long sent;

        Calls(int expected) {
            this.expected = Math.max(1, Math.min(CHUNK, expected));
        }

        void add(RenewalRound round, int lease, String key) {
            long ttlMillis = round.ttl(lease).toMillis();
            int keyGroup = group.applyAsInt(key);
            Call call = last != null && last.group == keyGroup && last.ttlMillis == ttlMillis ? last
                    : open.computeIfAbsent(new Chunk(keyGroup, ttlMillis), chunk -> new Call(chunk.group(),
                            chunk.ttlMillis(), expected));
            last = call;
            call.add(key, round.holder(lease), round, lease);
            renewals++;
            if (call.size == CHUNK) {
                sendAndReset(call);
            }
        }

        void finish() {
            for (Call call : open.values()) {
                if (call.size > 0) {
                    sendAndReset(call);
                }
            }
            if (!open.isEmpty()) {
                count(renewals, open.keySet().stream().mapToInt(Chunk::group).distinct().count(), sent);
            }
        }

        private void sendAndReset(Call call) {
            call.send();
            sent++;
        }
    }

    /**
     * One script call being filled: KEYS the leases' keys, ARGV the ttl then their holder ids, and
     * for each lease the round and index its answer goes to.
     */
    private final class Call {

        private final int group;
        private final long ttlMillis;
        private final int capacity;
        private String[] keys;
        private String[] args;
        private RenewalRound[] rounds;
        private int[] leases;
        private int size;

        /** @param capacity the leases it is sized for at first; it grows up to {@link #CHUNK} */
        Call(int group, long ttlMillis, int capacity) {
            this.group = group;
            this.ttlMillis = ttlMillis;
            this.capacity = capacity;
            reset();
        }

        /** Empties the call; its arrays are made on the next add, so a call that stays empty costs none. */
        private void reset() {
            keys = null;
            args = null;
            rounds = null;
            leases = null;
            size = 0;
        }

        void add(String key, String holder, RenewalRound round, int lease) {
            if (keys == null) {
                keys = new String[capacity];
                args = new String[capacity + 1];
                rounds = new RenewalRound[capacity];
                leases = new int[capacity];
            } else if (size == keys.length) {
                int capacity = Math.min(CHUNK, size * 2);
                keys = Arrays.copyOf(keys, capacity);
                args = Arrays.copyOf(args, capacity + 1);
                rounds = Arrays.copyOf(rounds, capacity);
                leases = Arrays.copyOf(leases, capacity);
            }
            keys[size] = key;
            args[size + 1] = holder;
            rounds[size] = round;
            leases[size] = lease;
            size++;
        }

        /** Sends the call and starts an empty one; its reply answers every lease it carried. */
        void send() {
            int count = size;
            String[] callKeys = count == keys.length ? keys : Arrays.copyOf(keys, count);
            String[] callArgs = count + 1 == args.length ? args : Arrays.copyOf(args, count + 1);
            callArgs[0] = Long.toString(ttlMillis);
            RenewalRound[] to = rounds;
            int[] at = leases;
            reset();
            script.runMany(commands, callKeys, callArgs).whenComplete((refused, error) -> answer(to, at, count, refused,
                    error));
        }
    }

    /**
     * Answers the {@code count} leases of one call: each failed with the call's one translated error,
     * or extended unless its 1-based position is among {@code refused}.
     */
    private void answer(RenewalRound[] rounds, int[] leases, int count, List<Object> refused, Throwable error) {
        if (error != null) {
            Throwable failure = translate.apply(error);
            for (int i = 0; i < count; i++) {
                rounds[i].fail(leases[i], failure);
            }
            return;
        }
        boolean[] notOurs = refused.isEmpty() ? null : new boolean[count];
        for (Object position : refused) {
            notOurs[Math.toIntExact((Long) position) - 1] = true;
        }
        for (int i = 0; i < count; i++) {
            rounds[i].answer(leases[i], notOurs == null || !notOurs[i]);
        }
    }

    /** One explicit extension as a round of one lease, answered through its future. */
    private static final class OneRenewal implements RenewalRound {

        private final String key;
        private final String holder;
        private final Duration ttl;
        private final CompletableFuture<Boolean> answer = new CompletableFuture<>();

        OneRenewal(String key, String holder, Duration ttl) {
            this.key = key;
            this.holder = holder;
            this.ttl = ttl;
        }

        @Override
        public int size() {
            return 1;
        }

        @Override
        public String name(int lease) {
            return key;
        }

        @Override
        public String holder(int lease) {
            return holder;
        }

        @Override
        public Duration ttl(int lease) {
            return ttl;
        }

        @Override
        public void answer(int lease, boolean extended) {
            answer.complete(extended);
        }

        @Override
        public void fail(int lease, Throwable error) {
            answer.completeExceptionally(error);
        }
    }
}
