package dev.leasehold.redlock;

import dev.leasehold.LockOptions;
import dev.leasehold.NodeFailure;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The Redlock mutex as a {@link LockProtocol}, so the shared engine does the waiting, the leases and
 * the watchdog. The engine's local deadline, {@code send time + ttl - drift}, is exactly Redlock's
 * validity, counted from just before this protocol's first send.
 *
 * <ul>
 *   <li><b>Acquire</b>: one {@link AcquireRound}. A round that is inconclusive (split vote, spent
 *   validity, short write-back) is retried up to the configured count after a random delay, as
 *   long as the retry still fits in the operation timeout and in the validity; then the attempt
 *   reports the lock as held for that random delay, so the engine retries after it. A round in
 *   which a majority reports another holder is held. A round that fewer than a majority answered
 *   fails with {@link dev.leasehold.LockUnavailableException}, one {@link NodeFailure} per node
 *   that did not grant.</li>
 *   <li><b>Renew</b>: extends on every node where the key is still ours; true once a majority
 *   extended, false once a majority cannot, an error if failed nodes leave it open (the engine
 *   then retries until the local deadline).</li>
 *   <li><b>Release</b>: compare-and-delete on every node; true if a majority still had our key.</li>
 * </ul>
 */
final class RedlockProtocol implements LockProtocol {

    private static final Logger LOG = LoggerFactory.getLogger(RedlockProtocol.class);

    private final List<RedlockNode> nodes;
    private final int quorum;
    private final RedlockSettings settings;
    private final String description;

    RedlockProtocol(List<RedlockNode> nodes, RedlockSettings settings) {
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.settings = settings;
        this.description = "redlock[" + nodes.stream().map(RedlockNode::describe).collect(Collectors.joining(", ")) + "]";
    }

    /** N/2+1 of the N nodes. */
    int quorum() {
        return quorum;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public int nodes() {
        return nodes.size();
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        CompletableFuture<Attempt> attempt = new CompletableFuture<>();
        round(LockKeys.of(request.name()), request.holder(), request.ttl(),
                request.subscribed() ? request.holder() : null, attempt, System.nanoTime(), 0);
        return attempt;
    }

    private void round(LockKeys keys, String holder, Duration ttl, String waiter, CompletableFuture<Attempt> attempt,
                       long firstSentNanos, int retriesDone) {
        new AcquireRound(nodes, quorum, keys, holder, ttl, waiter, settings, firstSentNanos).run().thenAccept(outcome -> {
            if (outcome instanceof RoundResult.Won won) {
                if (!attempt.complete(Attempt.acquired(won.token()))) {
                    // The engine gave up on this attempt while the round ran, and its clean-up may
                    // have reached some node before this round's acquire did.
                    long giveUpAt = System.nanoTime() + ttl.toNanos();
                    nodes.forEach(node -> node.releaseEventually(keys, holder, null, settings.nodeTimeoutWithoutTtl(), giveUpAt));
                }
                return;
            }
            RoundResult.Lost lost = (RoundResult.Lost) outcome;
            switch (lost.verdict()) {
                case HELD -> attempt.complete(Attempt.held(lost.holderRemaining()));
                case UNREACHABLE -> attempt.completeExceptionally(
                        QuorumFailures.unreachable(keys.lock(), nodes.size(), quorum, lost));
                case INCONCLUSIVE -> retryOrReportHeld(keys, holder, ttl, waiter, attempt, firstSentNanos, retriesDone, lost);
            }
        });
    }

    private void retryOrReportHeld(LockKeys keys, String holder, Duration ttl, String waiter,
                                   CompletableFuture<Attempt> attempt, long firstSentNanos, int retriesDone,
                                   RoundResult.Lost lost) {
        long delay = settings.nextRetryDelayNanos();
        // A round is at most two node calls long: the acquire, then the write-back or the clean-up.
        // It must end within the engine's bound on one attempt, and within the validity, which
        // counts from the first send: a later win would be a lease already expired.
        long nextRoundEnds = System.nanoTime() - firstSentNanos + delay + 2 * settings.nodeTimeout(ttl).toNanos();
        long limit = Math.min(settings.engine().operationTimeout().toNanos(),
                ttl.minus(LockOptions.drift(ttl)).toNanos());
        boolean fits = nextRoundEnds < limit;
        if (retriesDone < settings.retryCount() && fits && !attempt.isDone()) {
            LOG.debug("Redlock round for '{}' (holder {}) was inconclusive: {}; retry {} of {} in {} ms", keys.lock(),
                    HolderIds.redact(holder), lost.why(), retriesDone + 1, settings.retryCount(), delay / 1_000_000);
            CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(() -> {
                // The engine may have given up meanwhile (wait over, cancelled, timed out) and sent
                // its clean-up: a round now would take keys nobody waits for.
                if (!attempt.isDone()) {
                    round(keys, holder, ttl, waiter, attempt, firstSentNanos, retriesDone + 1);
                }
            });
        } else {
            LOG.debug("Redlock attempt for '{}' (holder {}) ends without a lease: {}", keys.lock(),
                    HolderIds.redact(holder), lost.why());
            // "Held for a random delay": the engine's next attempt comes after it (or at a release
            // notification), which is Redlock's retry after a random delay.
            attempt.complete(Attempt.held(Duration.ofNanos(delay)));
        }
    }

    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        LockKeys keys = LockKeys.of(name);
        Duration timeout = settings.nodeTimeout(ttl);
        return vote(node -> node.renew(keys, holder, ttl, timeout)).decided()
                .thenCompose(result -> decide("renewal", name, result));
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        LockKeys keys = LockKeys.of(name);
        QuorumVote vote = vote(node -> node.release(keys, holder, null, settings.nodeTimeoutWithoutTtl()));
        // Wait for every node (bounded by the per-node timeout) so the count is exact.
        return vote.settled().thenCompose(result -> {
            int answered = result.yes() + (int) result.failures().stream()
                    .filter(failure -> failure.kind() == NodeFailure.Kind.HELD_BY_OTHER).count();
            LOG.debug("Released '{}' (holder {}): our key was still on {} of {} nodes",
                    name, HolderIds.redact(holder), result.yes(), nodes.size());
            return decide("release", name, result)
                    .thenApply(released -> new ReleaseOutcome(released, result.yes(), answered, nodes.size()));
        });
    }

    /**
     * Releases on every node and forgets the waiter. Succeeds once a majority answered: whatever a
     * late round left on the others is a minority, which can never count as a lease; their release
     * is retried in the background until it gets through or a ttl has passed
     * ({@link RedlockNode#releaseEventually}) for as long as the default ttl (the SPI does not pass
     * the acquisition's ttl here), so the lock keeps its tolerance of failed nodes.
     */
    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        LockKeys keys = LockKeys.of(name);
        long giveUpAt = System.nanoTime() + LockOptions.DEFAULT_TTL.toNanos();
        return vote(node -> node.releaseEventually(keys, holder, holder, settings.nodeTimeoutWithoutTtl(), giveUpAt)).settled()
                .thenCompose(result -> {
                    List<NodeFailure> errors = result.failures().stream()
                            .filter(failure -> failure.kind() != NodeFailure.Kind.HELD_BY_OTHER).toList();
                    return nodes.size() - errors.size() >= quorum ? CompletableFuture.completedFuture(null)
                            : CompletableFuture.failedFuture(QuorumFailures.cleanupIncomplete(name, errors));
                });
    }

    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        LockKeys keys = LockKeys.of(name);
        return new QuorumReleaseSignal(nodes.stream().map(node -> node.subscribe(keys, holder)).toList(), quorum);
    }

    private QuorumVote vote(Function<RedlockNode, CompletableFuture<Boolean>> call) {
        // A "no" (the key is not ours on that node) is reported as held by another.
        return QuorumVote.count(nodes, quorum, nodes.stream().map(call).toList(), NodeFailure.Kind.HELD_BY_OTHER);
    }

    private CompletableFuture<Boolean> decide(String operation, String name, QuorumVote.Result result) {
        return switch (result.outcome()) {
            case YES -> CompletableFuture.completedFuture(true);
            case NO -> CompletableFuture.completedFuture(false);
            case UNDECIDED -> CompletableFuture.failedFuture(
                    QuorumFailures.undecided(operation, name, nodes.size(), quorum, result));
        };
    }
}
