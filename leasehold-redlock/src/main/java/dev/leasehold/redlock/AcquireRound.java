package dev.leasehold.redlock;

import dev.leasehold.LockOptions;
import dev.leasehold.NodeFailure;
import dev.leasehold.redis.internal.LockKeys;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One round of the Redlock algorithm, as the Redis documentation specifies it, plus the token
 * write-back:
 * <ol>
 *   <li>Send acquire.lua to all N nodes in parallel, each call bounded by the per-node timeout.
 *   The validity counts from {@code validFromNanos}, a {@link System#nanoTime()} reading taken
 *   before the first send of the attempt: the same origin as the engine's local deadline, so a
 *   lease is never handed out already expired, even after retried rounds.</li>
 *   <li>As soon as N/2+1 granted, take the maximum M of their counters and write it back to the
 *   granting nodes ({@link TokenWriteBack}).</li>
 *   <li>Won only if a majority stores M and {@code validity = ttl - elapsed - drift} is still
 *   positive after the write-back; the drift is {@link LockOptions#drift(Duration)}.</li>
 *   <li>Otherwise, or when every node answered without a majority granting, release on every node
 *   that did not answer "held by another" (so also on those that did not answer at all) and
 *   report why.</li>
 * </ol>
 * Each round object runs once.
 */
final class AcquireRound {

    private final List<RedlockNode> nodes;
    private final int quorum;
    private final LockKeys keys;
    private final String holder;
    private final Duration ttl;
    private final String waiter;
    private final RedlockSettings settings;
    private final Duration nodeTimeout;
    private final AtomicReferenceArray<NodeAnswer> answers;
    private final AtomicInteger granted = new AtomicInteger();
    private final AtomicInteger answered = new AtomicInteger();
    private final CompletableFuture<RoundResult> result = new CompletableFuture<>();
    private final long validFromNanos;

    AcquireRound(List<RedlockNode> nodes, int quorum, LockKeys keys, String holder, Duration ttl, String waiter,
                 RedlockSettings settings, long validFromNanos) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.keys = keys;
        this.holder = holder;
        this.ttl = ttl;
        this.waiter = waiter;
        this.settings = settings;
        this.nodeTimeout = settings.nodeTimeout(ttl);
        this.answers = new AtomicReferenceArray<>(nodes.size());
        this.validFromNanos = validFromNanos;
    }

    CompletableFuture<RoundResult> run() {
        for (int i = 0; i < nodes.size(); i++) {
            int index = i;
            RedlockNode node = nodes.get(i);
            node.acquire(keys, holder, ttl, waiter, settings, nodeTimeout).whenComplete((answer, error) ->
                    onAnswer(index, error == null ? answer : new NodeAnswer.Failed(node.failureOf(error))));
        }
        return result;
    }

    private void onAnswer(int index, NodeAnswer answer) {
        answers.set(index, answer);
        // Every grant is counted before its answer is, so the last answer sees all grants.
        boolean reachedQuorum = answer instanceof NodeAnswer.Granted && granted.incrementAndGet() == quorum;
        boolean last = answered.incrementAndGet() == nodes.size();
        if (reachedQuorum) {
            writeBackThenCheckValidity();
        } else if (last && granted.get() < quorum) {
            releaseThen(classify());
        }
    }

    private void writeBackThenCheckValidity() {
        List<TokenWriteBack.Grant> grants = new ArrayList<>();
        long token = Long.MIN_VALUE;
        for (int i = 0; i < nodes.size(); i++) {
            if (answers.get(i) instanceof NodeAnswer.Granted grant) {
                grants.add(new TokenWriteBack.Grant(nodes.get(i), grant.counter()));
                token = Math.max(token, grant.counter());
            }
        }
        long maximum = token;
        TokenWriteBack.write(grants, maximum, keys, settings.fenceRetention(), nodeTimeout).thenAccept(stored -> {
            long validityNanos = ttl.toNanos() - (System.nanoTime() - validFromNanos) - LockOptions.drift(ttl).toNanos();
            if (stored >= quorum && validityNanos > 0) {
                result.complete(new RoundResult.Won(maximum));
            } else if (stored < quorum) {
                releaseThen(inconclusive("the token write-back reached only " + stored + " of the " + quorum
                        + " nodes needed"));
            } else {
                releaseThen(inconclusive("a majority granted, but the validity (ttl - elapsed - drift) was spent: "
                        + (validityNanos / 1_000_000) + " ms"));
            }
        });
    }

    private RoundResult.Lost classify() {
        int grants = 0;
        List<Long> heldPttls = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            NodeAnswer answer = answers.get(i);
            if (answer instanceof NodeAnswer.Granted) {
                grants++;
            } else if (answer instanceof NodeAnswer.Held held) {
                heldPttls.add(held.pttlMillis());
            }
        }
        int reachable = grants + heldPttls.size();
        if (reachable < quorum) {
            return lost(RoundResult.Verdict.UNREACHABLE, grants, null,
                    "only " + reachable + " of " + nodes.size() + " nodes answered");
        }
        if (heldPttls.size() >= quorum) {
            return lost(RoundResult.Verdict.HELD, grants, holderRemaining(heldPttls, grants),
                    heldPttls.size() + " of " + nodes.size() + " nodes are held by another holder");
        }
        return lost(RoundResult.Verdict.INCONCLUSIVE, grants, null, "no majority: " + grants + " granted, "
                + heldPttls.size() + " held by others, " + (nodes.size() - reachable) + " unreachable");
    }

    private RoundResult.Lost inconclusive(String why) {
        return lost(RoundResult.Verdict.INCONCLUSIVE, granted.get(), null, why);
    }

    private RoundResult.Lost lost(RoundResult.Verdict verdict, int grants, Duration holderRemaining, String why) {
        List<NodeFailure> failures = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            NodeAnswer answer = answers.get(i);
            if (answer instanceof NodeAnswer.Held) {
                failures.add(new NodeFailure(nodes.get(i).describe(), NodeFailure.Kind.HELD_BY_OTHER, null));
            } else if (answer instanceof NodeAnswer.Failed failed) {
                failures.add(failed.failure());
            }
        }
        return new RoundResult.Lost(verdict, grants, failures, holderRemaining, why);
    }

    /**
     * Releases on every node that did not answer "held by another", then completes with {@code lost}.
     * Only the releases on nodes that granted are awaited. A node that failed or has not answered
     * may still run (or have run) this round's acquire; its release is retried in the background
     * until it gets through or the ttl of that acquire is over ({@link RedlockNode#releaseEventually}),
     * since a disconnected node refuses calls rather than queueing them behind the acquire.
     */
    private void releaseThen(RoundResult.Lost lost) {
        long giveUpAtNanos = System.nanoTime() + ttl.toNanos();
        List<CompletableFuture<Boolean>> awaited = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            NodeAnswer answer = answers.get(i);
            if (answer instanceof NodeAnswer.Held) {
                continue;
            }
            CompletableFuture<Boolean> release = nodes.get(i).releaseEventually(keys, holder, null, nodeTimeout, giveUpAtNanos);
            if (answer instanceof NodeAnswer.Granted) {
                awaited.add(release.exceptionally(error -> false));
            }
        }
        CompletableFuture.allOf(awaited.toArray(CompletableFuture[]::new)).thenRun(() -> result.complete(lost));
    }

    /**
     * When enough of the holder's keys expire for a majority to be free, assuming unreachable nodes
     * stay so: the (quorum - granted)-th smallest remaining ttl; unknown if a key has no ttl.
     */
    private Duration holderRemaining(List<Long> heldPttls, int grants) {
        List<Long> sorted = heldPttls.stream().map(pttl -> pttl < 0 ? Long.MAX_VALUE : pttl).sorted().toList();
        long needed = sorted.get(quorum - grants - 1);
        return needed == Long.MAX_VALUE ? null : Duration.ofMillis(needed);
    }
}
