package dev.leasehold.engine;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockOptions;
import dev.leasehold.spi.LockProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The watchdog and deadline check of one lease, run on the client's {@link RenewalScheduler}.
 *
 * <p>Each tick first checks the local deadline (and declares the lease lost when it passed), then,
 * in watchdog mode, queues one renewal unless one is still in flight (renewals fall a third of the
 * ttl apart, or a third of what the backend granted if that is shorter); renewals due together are
 * sent as one batch. The next tick falls at the
 * earlier of one renewal period and the deadline, so a lease whose renewals hang is still
 * declared lost on time. In fixed-lease mode the only tick is the deadline itself.
 *
 * <p>A renewal answer only extends a lease that is still HELD (see {@link LeaseLifecycle#extend}),
 * and {@link #stop()} cancels the pending tick after the lease left HELD; a tick that races with
 * it re-checks the phase after scheduling and cancels its own successor, so no task leaks.
 */
final class Renewal {

    private static final Logger LOG = LoggerFactory.getLogger(Renewal.class);

    private final ManagedLease lease;
    private final LockProtocol protocol;
    private final RenewalScheduler scheduler;
    private final LockOptions options;
    /** Renewals are aligned to this grid (or an eighth of the period, if finer). */
    private static final long MAX_GRID_NANOS = Duration.ofMillis(10).toNanos();

    private final long periodNanos;
    private final long gridNanos;
    /**
     * A third of the lease's local lifetime as of its last grant or renewal: shorter than
     * {@link #periodNanos} when the backend grants less than the ttl ({@link LockProtocol#grantedFor}).
     */
    private volatile long grantedPeriodNanos;
    private final long renewUntilNanos;
    private final CallTimeouts timeouts;
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private final AtomicBoolean warned = new AtomicBoolean();
    private final LeaseEvents events;
    private final AtomicReference<RenewalScheduler.Timer> nextTick = new AtomicReference<>();
    private final Runnable tick = this::tick;

    /**
     * @param granted the lease's lifetime as granted at {@code acquiredAtNanos}
     *                ({@link ManagedLease#grantedLifetime}), before the drift
     */
    Renewal(ManagedLease lease, LockProtocol protocol, RenewalScheduler scheduler, LockOptions options,
            long acquiredAtNanos, Duration granted, CallTimeouts timeouts, LeaseEvents events) {
        this.lease = lease;
        this.protocol = protocol;
        this.scheduler = scheduler;
        this.options = options;
        this.periodNanos = options.renewalPeriod().toNanos();
        this.gridNanos = Math.max(1, Math.min(MAX_GRID_NANOS, periodNanos / 8));
        this.grantedPeriodNanos = granted.toNanos() / 3;
        this.renewUntilNanos = acquiredAtNanos + options.maxHold().map(Duration::toNanos).orElse(Long.MAX_VALUE / 4);
        this.timeouts = timeouts;
        this.events = events;
    }

    /** Schedules the first tick; called once, right after the lease was created. */
    void start() {
        scheduleNext(System.nanoTime());
    }

    /** Which {@link LossReason} a lease found past its local deadline at {@code nowNanos} was lost for. */
    LossReason expiredBy(long nowNanos) {
        return maxHoldReached(nowNanos) ? LossReason.MAX_HOLD : LossReason.EXPIRED;
    }

    private boolean maxHoldReached(long nowNanos) {
        return options.isWatchdog() && options.maxHold().isPresent() && nowNanos - renewUntilNanos >= 0;
    }

    /**
     * Why a lease found past its local deadline at {@code nowNanos} expired: its maxHold ended the
     * renewals on purpose, or renewals did not succeed in time.
     */
    String whyExpired(long nowNanos) {
        if (maxHoldReached(nowNanos)) {
            return "its maxHold (" + options.maxHold().get() + ") was reached, so renewal stopped on purpose";
        }
        return ManagedLease.DEADLINE_PASSED;
    }

    /** Cancels the pending tick. Called after the lease left HELD. */
    void stop() {
        RenewalScheduler.Timer pending = nextTick.getAndSet(null);
        if (pending != null) {
            pending.cancel();
        }
    }

    private void tick() {
        if (!lease.isValid()) {
            return;
        }
        long now = System.nanoTime();
        if (options.isWatchdog() && now - renewUntilNanos < 0 && inFlight.compareAndSet(false, true)) {
            scheduler.batch(this::sendRenewal, protocol);
        }
        scheduleNext(now);
    }

    private void sendRenewal() {
        long sentAt = System.nanoTime();
        long untilDeadlineNanos = lease.lifecycle().deadlineNanos() - sentAt;
        if (lease.lifecycle().phase() != LeasePhase.HELD || untilDeadlineNanos <= 0) {
            inFlight.set(false);
            return;
        }
        timeouts.bound(protocol.renew(lease.lockName(), lease.holder(), options.ttl()), untilDeadlineNanos)
                .whenComplete((extended, error) -> {
                    inFlight.set(false);
                    if (error != null) {
                        events.renewalFailed();
                        logFailure(error);
                    } else if (extended) {
                        Duration granted = ManagedLease.grantedLifetime(protocol, lease.holder(), sentAt,
                                options.ttl());
                        grantedPeriodNanos = granted.toNanos() / 3;
                        if (!lease.lifecycle().extend(sentAt + ManagedLease.localLifetimeNanos(granted),
                                System.nanoTime())) {
                            // Too late (the deadline passed while the answer travelled) or already ended.
                            lease.isValid();
                        }
                    } else {
                        lease.markLost(LossReason.REFUSED, "a renewal found another holder or no key");
                    }
                });
    }

    /**
     * The first failure of a lease is a WARN; its retries are DEBUG, so a long outage is one line per
     * lease. The line names the backend, what failed and what to check, and how long the lease has.
     */
    private void logFailure(Throwable error) {
        String cause = failureOf(Futures.unwrap(error));
        long left = TimeUnit.NANOSECONDS.toMillis(Math.max(0, lease.lifecycle().deadlineNanos() - System.nanoTime()));
        if (warned.compareAndSet(false, true)) {
            LOG.warn("Renewal of lock '{}' (token {}, holder {}) failed: {}. Retrying until the local deadline, "
                            + "{} ms from now, when the lease is lost unless a renewal succeeded",
                    lease.lockName(), lease.token(), HolderIds.redact(lease.holder()), cause, left);
        } else {
            LOG.debug("Renewal of lock '{}' (token {}, holder {}) failed again: {}. Retrying until the local "
                            + "deadline, {} ms from now", lease.lockName(), lease.token(),
                    HolderIds.redact(lease.holder()), cause, left);
        }
    }

    /**
     * A failure in words. A call that timed out (the engine's bound or the backend's) is a
     * {@link TimeoutException} without a message, which alone names neither the server nor a remedy.
     */
    private String failureOf(Throwable cause) {
        if (cause instanceof TimeoutException && cause.getMessage() == null) {
            return protocol.describe() + " did not answer the renewal in time; check that it is running and "
                    + "reachable from this host";
        }
        return cause instanceof LeaseholdException ? cause.getMessage() : cause.toString();
    }

    private void scheduleNext(long now) {
        long deadline = lease.lifecycle().deadlineNanos();
        long untilDeadline = deadline - now;
        long period = Math.max(1, Math.min(periodNanos, grantedPeriodNanos));
        RenewalScheduler.Timer scheduled = null;
        if (options.isWatchdog() && period < untilDeadline) {
            // Round the renewal up to a grid shared by every lease of the client: renewals that
            // fall due together share one timer event and leave in one batch.
            long due = now + period;
            long aligned = Math.floorDiv(due + gridNanos - 1, gridNanos) * gridNanos;
            if (aligned - deadline < 0) {
                scheduled = scheduler.scheduleOnGrid(tick, aligned);
            }
        }
        if (scheduled == null) {
            // The deadline comes first (or there is no renewal): check it exactly on time.
            ScheduledFuture<?> atDeadline = scheduler.schedule(tick, untilDeadline);
            scheduled = () -> atDeadline.cancel(false);
        }
        RenewalScheduler.Timer previous = nextTick.getAndSet(scheduled);
        if (previous != null) {
            previous.cancel();
        }
        if (lease.lifecycle().phase() != LeasePhase.HELD) {
            stop();
        }
    }
}
