package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseReport;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The {@link Lease} every engine-backed lock hands out: a {@link LeaseLifecycle} for its state,
 * a {@link Renewal} for its watchdog and deadline, and the release protocol.
 */
final class ManagedLease implements Lease {

    private static final Logger LOG = LoggerFactory.getLogger(ManagedLease.class);
    static final String DEADLINE_PASSED = "the local deadline passed without a successful renewal";
    static final String RELEASE_FOUND_IT_GONE =
            "the release found another holder or no key: it had been lost before it was released";

    private final String lockName;
    private final String holder;
    private final long token;
    private final LeaseEngine engine;
    private final LockProtocol protocol;
    private final CallTimeouts timeouts;
    /** The thread that asked for this lease, for messages. */
    private final String requester;
    private final WaitQueues.Key queueKey;
    private final LeaseLifecycle lifecycle;
    private final Renewal renewal;
    private final CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
    private final AtomicReference<CompletableFuture<ReleaseStatus>> release = new AtomicReference<>();
    private final Consumer<ManagedLease> onEnd;
    private final AcquisitionTrace trace;
    /** When the lock may be deleted on release: acquire send time + holdAtLeast; absent without holdAtLeast. */
    private final Optional<Long> holdUntilNanos;
    private volatile ReleaseReport report;
    private volatile boolean releasedWhileHeld;
    /**
     * An attempt of this lease's release, sent while it was held, failed without an answer: it may
     * have deleted the key (its reply lost with the connection), so a retry that finds the key gone
     * reports a release, not a loss.
     */
    private volatile boolean releaseUnanswered;
    private volatile String lostReason;
    /** Set when closing the client ended the lease: that is no overrun of the holder's. */
    private volatile boolean endedByClose;
    private final AtomicBoolean overrunReported = new AtomicBoolean();

    /**
     * A HELD lease whose local deadline is {@code sentAtNanos + ttl - drift}; call {@link #start()}
     * to start its renewal.
     *
     * @param trace hears the loss of the lease
     * @param onEnd called once when the lease leaves HELD (released or lost)
     */
    ManagedLease(LeaseEngine engine, EngineLock lock, String holder, long token, long sentAtNanos, String requester,
                 AcquisitionTrace trace, Consumer<ManagedLease> onEnd) {
        LockOptions options = lock.options();
        this.requester = requester;
        this.queueKey = lock.queueKey();
        this.engine = engine;
        this.lockName = lock.name();
        this.holder = holder;
        this.token = token;
        this.protocol = lock.protocol();
        this.timeouts = lock.timeouts();
        this.onEnd = onEnd;
        this.trace = trace;
        this.holdUntilNanos = options.holdAtLeast().map(hold -> sentAtNanos + hold.toNanos());
        Duration granted = grantedLifetime(protocol, holder, sentAtNanos, options.ttl());
        this.lifecycle = new LeaseLifecycle(sentAtNanos + localLifetimeNanos(granted));
        this.renewal = new Renewal(this, protocol, engine.scheduler(), options, sentAtNanos, granted, timeouts,
                engine.events());
    }

    /**
     * How long after {@code sentAtNanos} a lease confirmed by the backend stays valid locally: the
     * shorter of {@code ttl} and what the backend itself grants ({@link LockProtocol#grantedFor}),
     * minus that duration's drift.
     */
    static long localLifetimeNanos(LockProtocol protocol, String holder, long sentAtNanos, Duration ttl) {
        return localLifetimeNanos(grantedLifetime(protocol, holder, sentAtNanos, ttl));
    }

    /** {@code granted} (a {@link #grantedLifetime}) minus its drift. */
    static long localLifetimeNanos(Duration granted) {
        return granted.minus(LockOptions.drift(granted)).toNanos();
    }

    /** The shorter of {@code ttl} and the backend's grant (never negative). */
    static Duration grantedLifetime(LockProtocol protocol, String holder, long sentAtNanos, Duration ttl) {
        Duration granted = protocol.grantedFor(holder, sentAtNanos);
        if (granted == null || granted.compareTo(ttl) >= 0) {
            return ttl;
        }
        return granted.isNegative() ? Duration.ZERO : granted;
    }

    /** Starts the watchdog and the deadline check; called once, right after construction. */
    void start() {
        renewal.start();
    }

    LeaseLifecycle lifecycle() {
        return lifecycle;
    }

    String holder() {
        return holder;
    }

    String requester() {
        return requester;
    }

    /** Whether this lease holds {@code lock}'s kind and name. */
    boolean isFor(EngineLock lock) {
        return queueKey.equals(lock.queueKey());
    }

    /** HELD to LOST: stops renewal and completes {@link #lost()}. */
    void markLost(LossReason kind, String reason) {
        if (lifecycle.markLost()) {
            afterLost(kind, reason);
        }
    }

    /** The one report of a loss: one WARN, one event, then {@link #lost()} completes. */
    private void afterLost(LossReason kind, String reason) {
        lostReason = reason;
        renewal.stop();
        protocol.leaseLost(lockName, holder);
        LeaseLostException cause = new LeaseLostException(lockName, token, reason);
        engine.events().leaseLost(kind);
        trace.leaseLost(kind, cause);
        onEnd.accept(this);
        LOG.warn("Lease on lock '{}' (token {}) lost: {}", lockName, token, reason);
        // Users' callbacks run on the callback executor: never on a client I/O thread, and never on
        // the renewal thread, where a callback that blocks would stop every other lease's renewals.
        engine.callbackExecutor().execute(() -> lost.complete(cause));
    }

    @Override
    public String lockName() {
        return lockName;
    }

    @Override
    public long token() {
        return token;
    }

    /** Also the deadline check: a lease found past its deadline is lost from this call on. */
    @Override
    public boolean isValid() {
        long now = System.nanoTime();
        LeaseLifecycle.Check check = lifecycle.checkAt(now);
        if (check == LeaseLifecycle.Check.EXPIRED_NOW) {
            afterLost(renewal.expiredBy(now), renewal.whyExpired(now));
        }
        return check == LeaseLifecycle.Check.VALID;
    }

    @Override
    public Duration remaining() {
        long deadline = lifecycle.deadlineNanos();
        if (!isValid()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    @Override
    public void ensureValid() {
        if (isValid()) {
            return;
        }
        LeasePhase phase = lifecycle.phase();
        String reason = switch (phase) {
            case RELEASING, RELEASED -> "it was released";
            case LOST -> lostReason == null ? DEADLINE_PASSED : lostReason;
            case HELD -> DEADLINE_PASSED;
        };
        if (phase != LeasePhase.RELEASING && phase != LeasePhase.RELEASED) {
            reportOverrun();
        }
        throw new LeaseLostException(lockName, token, reason);
    }

    /** The holder used a lease that had been lost: counted once per lease, never for a closed client. */
    private void reportOverrun() {
        if (!endedByClose && overrunReported.compareAndSet(false, true)) {
            engine.events().leaseOverrun();
        }
    }

    /**
     * One {@link LockProtocol#renew} call, flushed at once, and the local deadline moved to
     * {@code send time + ttl - drift(ttl)} (or less, if the backend grants less:
     * {@link LockProtocol#grantedFor}) only after the server said yes (see
     * {@link LeaseLifecycle#extend}: only forward, only while still HELD and before the deadline).
     */
    @Override
    public void extend(Duration ttl) {
        Futures.awaitUninterruptibly(extendAsync(ttl), protocol.describe(), "the extension of '" + lockName + "'");
    }

    @Override
    public CompletableFuture<Void> extendAsync(Duration ttl) {
        Args.within("ttl", ttl, LockOptions.MIN_TTL, LockOptions.MAX_TTL);
        ensureValid();
        long sentAt = System.nanoTime();
        CompletableFuture<Boolean> answer = protocol.renew(lockName, holder, ttl);
        protocol.flushRenewals();
        return timeouts.bound(answer).handle((extended, error) -> {
            if (error != null) {
                throw new CompletionException(Futures.translate(error, protocol.describe(),
                        "the extension of '" + lockName + "'"));
            }
            if (!extended) {
                markLost(LossReason.REFUSED, "an extension found another holder or no key");
            } else if (!lifecycle.extend(sentAt + localLifetimeNanos(protocol, holder, sentAt, ttl), System.nanoTime())) {
                // Ended meanwhile, past the deadline, or the lease already lasts longer: isValid tells which.
                isValid();
            }
            ensureValid();
            return null;
        });
    }

    @Override
    public CompletionStage<LeaseLostException> lost() {
        return lost.minimalCompletionStage();
    }

    @Override
    public ReleaseStatus release() {
        return Futures.awaitUninterruptibly(release(false), protocol.describe(), "release of '" + lockName + "'");
    }

    /**
     * Starts the release, or joins the one already running or finished. A failed release is
     * forgotten so the next call retries it. Once the client is closed, the backend is not called:
     * {@link LeaseEngine#close()} already released what was held.
     */
    @Override
    public CompletableFuture<ReleaseStatus> releaseAsync() {
        // A copy: a caller that completes or cancels its future must not touch the shared release.
        return release(false).copy();
    }

    /**
     * Releases a lease nobody will use: granted after its acquisition was given up. Its key may
     * already be gone (the acquisition's clean-up deleted it), which is no news worth a warning.
     * It is deleted even within {@link LockOptions#holdAtLeast}: that keeps a lock after work its
     * holder did, and no holder did any under this lease; keeping it would leave the lock held by
     * nobody for holdAtLeast (or, on a backend that cannot keep it, for the ttl), where the
     * clean-up of an acquire given up a moment earlier frees it at once.
     */
    void discard() {
        release(true);
    }

    private CompletableFuture<ReleaseStatus> release(boolean discarding) {
        CompletableFuture<ReleaseStatus> mine = new CompletableFuture<>();
        if (!release.compareAndSet(null, mine)) {
            return release.get();
        }
        isValid();
        // A retry after a failed release finds the lease RELEASING: it was still held all the same.
        boolean wasHeld = lifecycle.beginRelease() || releasedWhileHeld;
        releasedWhileHeld = wasHeld;
        renewal.stop();
        if (!wasHeld && !discarding) {
            reportOverrun();
        }
        if (!wasHeld && engine.isClosed()) {
            mine.complete(ReleaseStatus.ALREADY_LOST);
            return mine;
        }
        if (!wasHeld) {
            // A lease lost before its release is not kept: the compare-and-delete finds it gone.
            return releaseLost(mine);
        }
        CompletableFuture<ReleaseOutcome> deletion = discarding ? protocol.release(lockName, holder) : endOnServer();
        // After the release is on the wire: the next local waiter's attempt then queues behind it.
        onEnd.accept(this);
        timeouts.bound(deletion)
                .whenComplete((outcome, error) -> {
                    if (error != null) {
                        releaseUnanswered = true;
                        release.compareAndSet(mine, null);
                        if (!discarding) {
                            engine.events().releaseFailed();
                        }
                        mine.completeExceptionally(Futures.translate(error, protocol.describe(),
                                "release of '" + lockName + "'"));
                        return;
                    }
                    lifecycle.finishRelease();
                    // The key gone after an unanswered attempt: that attempt deleted it, or the ttl ran out
                    // after the holder had let go (the attempt was sent while the lease was valid).
                    ReleaseStatus status = outcome.released() || releaseUnanswered
                            ? ReleaseStatus.RELEASED : ReleaseStatus.ALREADY_LOST;
                    report = new ReleaseReport(status, outcome.nodesHolding(), outcome.nodesAnswered(), outcome.nodes());
                    if (status == ReleaseStatus.ALREADY_LOST && !discarding) {
                        // Lost on the server without this client noticing: this is its one report.
                        engine.events().leaseLost(LossReason.REFUSED);
                        reportOverrun();
                        LOG.warn("Lease on lock '{}' (token {}) lost: {}", lockName, token, RELEASE_FOUND_IT_GONE);
                    }
                    mine.complete(status);
                });
        return mine;
    }

    /**
     * The release of a lease that was already lost: its holder learns {@link ReleaseStatus#ALREADY_LOST}
     * at once, since the backend that lost it may be frozen or gone and nothing the holder calls after
     * a loss may wait on it. The compare-and-delete still runs, in the background, so a key the server
     * kept (a deadline that passed before the server's expiry) is freed before its ttl; until it
     * answers, the report says that no node answered, then what the deletion found.
     */
    private CompletableFuture<ReleaseStatus> releaseLost(CompletableFuture<ReleaseStatus> mine) {
        report = new ReleaseReport(ReleaseStatus.ALREADY_LOST, 0, 0, protocol.nodes());
        timeouts.bound(protocol.release(lockName, holder)).whenComplete((outcome, error) -> {
            if (outcome != null) {
                report = new ReleaseReport(ReleaseStatus.ALREADY_LOST, outcome.nodesHolding(), outcome.nodesAnswered(),
                        outcome.nodes());
            } else {
                LOG.debug("The clean-up of lost lock '{}' (token {}) failed; its key expires by its ttl: {}",
                        lockName, token, Futures.unwrap(error).toString());
            }
        });
        mine.complete(ReleaseStatus.ALREADY_LOST);
        return mine;
    }

    /**
     * The client is closing: the lease is lost to its holder from now on, and its key is deleted
     * (compare-and-delete) so other clients need not wait for the ttl, or, with
     * {@link LockOptions#holdAtLeast} not yet passed, kept until then as a release would keep it. A later {@link #release()}
     * returns {@link ReleaseStatus#ALREADY_LOST} without calling the backend.
     *
     * @return completes when the deletion was answered or failed
     */
    CompletableFuture<Void> releaseOnClose(String reason) {
        CompletableFuture<ReleaseStatus> mine = new CompletableFuture<>();
        if (!release.compareAndSet(null, mine)) {
            return release.get().handle((status, error) -> null);
        }
        endedByClose = true;
        markLost(LossReason.CLIENT_CLOSED, reason);
        return timeouts.bound(endOnServer()).handle((outcome, error) -> {
            if (outcome != null) {
                report = new ReleaseReport(ReleaseStatus.ALREADY_LOST, outcome.nodesHolding(),
                        outcome.nodesAnswered(), outcome.nodes());
            } else {
                LOG.warn("Releasing lock '{}' (token {}) while closing the client failed; its key expires by its ttl: {}",
                        lockName, token, Futures.unwrap(error).toString());
            }
            mine.complete(ReleaseStatus.ALREADY_LOST);
            return null;
        });
    }

    /**
     * Deletes the lock, or, before {@link LockOptions#holdAtLeast} has passed since the acquire's
     * send, keeps it held on the server for what remains of it ({@link LockProtocol#releaseHolding}).
     */
    private CompletableFuture<ReleaseOutcome> endOnServer() {
        long keepNanos = holdUntilNanos.map(until -> until - System.nanoTime()).orElse(0L);
        if (keepNanos <= 0) {
            return protocol.release(lockName, holder);
        }
        return protocol.releaseHolding(lockName, holder, Duration.ofNanos(keepNanos));
    }

    @Override
    public Optional<ReleaseReport> releaseReport() {
        return Optional.ofNullable(report);
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "Lease[" + lockName + ", token " + token + ", " + lifecycle.phase() + "]";
    }
}
