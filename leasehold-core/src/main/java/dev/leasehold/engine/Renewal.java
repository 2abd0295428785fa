package dev.leasehold.engine;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockOptions;
import dev.leasehold.spi.LockProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * in watchdog mode, joins one renewal to the tick's {@link RenewalRounds} unless one is still in
 * flight; the renewals of one timer event leave as one {@link SentRound} per protocol. Ticks fall
 * at most a renewal period apart (a third of the ttl, or of what the backend granted if that is
 * shorter), rounded down to the client's renewal {@link #grid}, or at the deadline if that comes
 * first, so a lease whose renewals hang is still declared lost on time. In fixed-lease mode the
 * only tick is the deadline itself.
 *
 * <p>A renewal in flight is tied to its round: only that round's answer or failure ends it, once,
 * so an answer that comes after the round's bound failed it changes nothing. A successful answer
 * only extends a lease that is still HELD (see {@link LeaseLifecycle#extend}), from the round's send
 * time. {@link #stop()} takes the lease off the grid and cancels its deadline check after it left
 * HELD; a tick that races with it re-checks the phase after scheduling and stops its own successor,
 * so no task leaks.
 */
final class Renewal implements RenewalScheduler.GridTick {

    private static final Logger LOG = LoggerFactory.getLogger(Renewal.class);
    /** The grid of leases whose backend grants a shorter period than their ttl asks for. */
    private static final long FINE_GRID_NANOS = Duration.ofMillis(10).toNanos();
    private static final VarHandle IN_FLIGHT;

    static {
        try {
            IN_FLIGHT = MethodHandles.lookup().findVarHandle(Renewal.class, "inFlight", SentRound.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ManagedLease lease;
    private final LockProtocol protocol;
    private final RenewalScheduler scheduler;
    private final LockOptions options;
    private final long periodNanos;
    /** The local lifetime a renewal confirmed for the full ttl gives: ttl minus its drift. */
    private final long ttlLifetimeNanos;
    /**
     * A third of the lease's local lifetime as of its last grant or renewal: shorter than
     * {@link #periodNanos} when the backend grants less than the ttl ({@link LockProtocol#grantedFor}).
     */
    private volatile long grantedPeriodNanos;
    private final long renewUntilNanos;
    private final CallTimeouts timeouts;
    private final AtomicBoolean warned = new AtomicBoolean();
    private final LeaseEvents events;
    /** The round whose renewal of this lease awaits its answer; null when none does. Only the timer thread sets it. */
    private volatile SentRound inFlight;
    /** The grid slot the next tick is due in; null when off the grid (deadline check only, or stopped). */
    private volatile TimerSlot queuedIn;
    private final AtomicReference<ScheduledFuture<?>> deadlineCheck = new AtomicReference<>();

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
        this.ttlLifetimeNanos = ManagedLease.localLifetimeNanos(options.ttl());
        this.grantedPeriodNanos = granted.toNanos() / 3;
        this.renewUntilNanos = acquiredAtNanos + options.maxHold().map(Duration::toNanos).orElse(Long.MAX_VALUE / 4);
        this.timeouts = timeouts;
        this.events = events;
    }

    /** Schedules the first tick; called once, right after the lease was created. */
    void start() {
        scheduleNext(System.nanoTime());
    }

    String lockName() {
        return lease.lockName();
    }

    String holder() {
        return lease.holder();
    }

    Duration ttl() {
        return options.ttl();
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

    /** Takes the lease off the grid and cancels its deadline check. Called after the lease left HELD. */
    void stop() {
        queuedIn = null;
        ScheduledFuture<?> pending = deadlineCheck.getAndSet(null);
        if (pending != null) {
            pending.cancel(false);
        }
    }

    @Override
    public void queuedIn(TimerSlot slot) {
        queuedIn = slot;
    }

    @Override
    public boolean isDueIn(TimerSlot slot) {
        return queuedIn == slot;
    }

    @Override
    public void tick(long nowNanos, RenewalRounds rounds) {
        if (!lease.isValid()) {
            return;
        }
        if (options.isWatchdog() && nowNanos - renewUntilNanos < 0 && inFlight == null) {
            long untilDeadlineNanos = lease.lifecycle().deadlineNanos() - nowNanos;
            if (untilDeadlineNanos > 0) {
                inFlight = rounds.join(this, protocol, timeouts.limitNanos(untilDeadlineNanos));
            }
        }
        scheduleNext(nowNanos);
    }

    /**
     * The answer to this lease's renewal in {@code round}: the local deadline moves to the round's
     * send time plus the local lifetime, or the lease is lost if another holder (or nobody) has it.
     *
     * @return false if the renewal was no longer in flight in {@code round} (already answered or failed)
     */
    boolean answered(SentRound round, boolean extended) {
        if (!IN_FLIGHT.compareAndSet(this, round, null)) {
            return false;
        }
        if (!extended) {
            lease.markLost(LossReason.REFUSED, "a renewal found another holder or no key");
            return true;
        }
        long sentAt = round.sentAtNanos();
        Duration lifetime = ManagedLease.grantedLifetime(protocol, lease.holder(), sentAt, options.ttl());
        long localLifetime;
        if (lifetime == options.ttl()) {
            // The usual case (no shorter grant from the backend): nothing to compute per answer.
            grantedPeriodNanos = periodNanos;
            localLifetime = ttlLifetimeNanos;
        } else {
            grantedPeriodNanos = lifetime.toNanos() / 3;
            localLifetime = ManagedLease.localLifetimeNanos(lifetime);
        }
        if (!lease.lifecycle().extend(sentAt + localLifetime, System.nanoTime())) {
            // Too late (the deadline passed while the answer travelled) or already ended.
            lease.isValid();
        }
        return true;
    }

    /**
     * This lease's renewal in {@code round} failed: counted and logged; it extends nothing.
     *
     * @return false if the renewal was no longer in flight in {@code round}
     */
    boolean failed(SentRound round, Throwable error) {
        if (!IN_FLIGHT.compareAndSet(this, round, null)) {
            return false;
        }
        events.renewalFailed();
        logFailure(error);
        return true;
    }

    /**
     * The first failure of a lease is a WARN; its retries are DEBUG, so a long outage is one line per
     * lease. The line names the backend, what failed and what to check, and how long the lease has.
     */
    private void logFailure(Throwable error) {
        boolean first = warned.compareAndSet(false, true);
        // A failed round fails every lease in it: build the words only for a line that is written.
        if (!first && !LOG.isDebugEnabled()) {
            return;
        }
        String cause = failureOf(Futures.unwrap(error));
        long left = TimeUnit.NANOSECONDS.toMillis(Math.max(0, lease.lifecycle().deadlineNanos() - System.nanoTime()));
        if (first) {
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
        ScheduledFuture<?> atDeadline = null;
        if (options.isWatchdog() && period < untilDeadline) {
            // Before the deadline, which is more than a period away.
            scheduler.onGrid(this, nextTick(now, period, periodNanos));
        } else {
            // The deadline comes first (or there is no renewal): check it exactly on time.
            queuedIn = null;
            atDeadline = scheduler.atDeadline(this, untilDeadline);
        }
        ScheduledFuture<?> previous = deadlineCheck.getAndSet(atDeadline);
        if (previous != null) {
            previous.cancel(false);
        }
        if (lease.lifecycle().phase() != LeasePhase.HELD) {
            stop();
        }
    }

    /**
     * The next watchdog tick after one at {@code nowNanos}: {@code periodNanos} later, rounded down
     * to the {@link #grid}, so it comes within a period, and more than seven eighths of one later.
     *
     * @param configuredNanos the period the ttl asks for; {@code periodNanos} is shorter when the
     *                        backend grants less ({@link LockProtocol#grantedFor})
     */
    static long nextTick(long nowNanos, long periodNanos, long configuredNanos) {
        long grid = grid(periodNanos, configuredNanos);
        return Math.floorDiv(nowNanos + periodNanos, grid) * grid;
    }

    /**
     * The renewal grid: an eighth of the period the ttl asks for, so the leases of one ttl fall
     * into at most eight timer events per period, whatever their number, and leave in as few
     * script calls (fewer, larger calls cost the server less per renewal than many small ones); it
     * divides the period, so a lease renewed at every tick is renewed exactly once per period. A
     * shorter period granted by the backend varies from renewal to renewal: it keeps a fine grid of
     * at most {@link #FINE_GRID_NANOS} that every such lease shares.
     */
    static long grid(long periodNanos, long configuredNanos) {
        long eighth = Math.max(1, periodNanos / 8);
        return periodNanos == configuredNanos ? eighth : Math.min(FINE_GRID_NANOS, eighth);
    }
}
