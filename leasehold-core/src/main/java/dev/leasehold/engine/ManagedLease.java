package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseReport;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The {@link Lease} every engine-backed lock hands out: a {@link LeaseLifecycle} for its state,
 * a {@link Renewal} for its watchdog and deadline, and the release protocol.
 */
final class ManagedLease implements Lease {

    private static final Logger LOG = LoggerFactory.getLogger(ManagedLease.class);

    private final String lockName;
    private final String holder;
    private final long token;
    private final LockProtocol protocol;
    private final CallTimeouts timeouts;
    private final LeaseLifecycle lifecycle = new LeaseLifecycle();
    private final Renewal renewal;
    private final CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
    private final AtomicReference<CompletableFuture<ReleaseStatus>> release = new AtomicReference<>();
    private final Consumer<ManagedLease> onEnd;
    private volatile ReleaseReport report;
    private final RenewalScheduler scheduler;

    ManagedLease(String lockName, String holder, long token, LockOptions options, LockProtocol protocol,
                 RenewalScheduler scheduler, long sentAtNanos, CallTimeouts timeouts, Consumer<ManagedLease> onEnd) {
        this.lockName = lockName;
        this.holder = holder;
        this.token = token;
        this.protocol = protocol;
        this.timeouts = timeouts;
        this.onEnd = onEnd;
        this.scheduler = scheduler;
        this.renewal = new Renewal(this, protocol, scheduler, options, sentAtNanos, timeouts);
    }

    /**
     * Makes the lease HELD with its first local deadline and starts its renewal.
     *
     * @return false if the lease was released before it could start
     */
    boolean activate(long deadlineNanos) {
        if (!lifecycle.activate(deadlineNanos)) {
            return false;
        }
        renewal.start();
        return true;
    }

    LeaseLifecycle lifecycle() {
        return lifecycle;
    }

    String holder() {
        return holder;
    }

    /** HELD to LOST: stops renewal and completes {@link #lost()}. */
    void markLost(String reason) {
        if (lifecycle.markLost()) {
            renewal.stop();
            onEnd.accept(this);
            LeaseLostException cause = new LeaseLostException(lockName, token, reason);
            LOG.warn("Lease on lock '{}' (token {}) lost: {}", lockName, token, reason);
            // Users' callbacks run on the scheduler thread, never on a client I/O thread.
            try {
                scheduler.execute(() -> lost.complete(cause));
            } catch (RejectedExecutionException closing) {
                lost.complete(cause);
            }
        }
    }

    @Override
    public String lockName() {
        return lockName;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public boolean isValid() {
        return lifecycle.isValidAt(System.nanoTime());
    }

    @Override
    public Duration remaining() {
        if (!isValid()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, lifecycle.deadlineNanos() - System.nanoTime()));
    }

    @Override
    public void ensureValid() {
        if (isValid()) {
            return;
        }
        LeasePhase phase = lifecycle.phase();
        if (phase == LeasePhase.HELD) {
            markLost("the local deadline passed without a successful renewal");
        }
        String reason = switch (phase) {
            case RELEASING, RELEASED -> "it was released";
            case LOST -> lost.getNow(new LeaseLostException(lockName, token, "lost")).getMessage();
            default -> "the local deadline passed without a successful renewal";
        };
        throw new LeaseLostException(lockName, token, reason);
    }

    @Override
    public CompletionStage<LeaseLostException> lost() {
        return lost.minimalCompletionStage();
    }

    @Override
    public ReleaseStatus release() {
        return Futures.awaitUninterruptibly(releaseAsync(), protocol.describe(), "release of '" + lockName + "'");
    }

    /**
     * Starts the release, or joins the one already running or finished. A failed release is
     * forgotten so the next call retries it.
     */
    CompletableFuture<ReleaseStatus> releaseAsync() {
        CompletableFuture<ReleaseStatus> mine = new CompletableFuture<>();
        if (!release.compareAndSet(null, mine)) {
            return release.get();
        }
        if (lifecycle.phase() == LeasePhase.HELD && !isValid()) {
            markLost("the local deadline passed without a successful renewal");
        }
        boolean wasHeld = lifecycle.beginRelease();
        renewal.stop();
        boolean wasLost = !wasHeld && lifecycle.phase() == LeasePhase.LOST;
        CompletableFuture<ReleaseOutcome> deletion = protocol.release(lockName, holder);
        // After the release is on the wire: the next local waiter's attempt then queues behind it.
        onEnd.accept(this);
        timeouts.bound(deletion)
                .whenComplete((outcome, error) -> {
                    if (error != null) {
                        release.compareAndSet(mine, null);
                        mine.completeExceptionally(Futures.translate(error, protocol.describe(),
                                "release of '" + lockName + "'"));
                        return;
                    }
                    lifecycle.finishRelease();
                    ReleaseStatus status = outcome.released() && !wasLost ? ReleaseStatus.RELEASED : ReleaseStatus.ALREADY_LOST;
                    report = new ReleaseReport(status, outcome.nodesHolding(), outcome.nodesAnswered(), outcome.nodes());
                    if (status == ReleaseStatus.ALREADY_LOST && !wasLost) {
                        LOG.warn("Lease on lock '{}' (token {}) had already been lost when it was released",
                                lockName, token);
                    }
                    mine.complete(status);
                });
        return mine;
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
