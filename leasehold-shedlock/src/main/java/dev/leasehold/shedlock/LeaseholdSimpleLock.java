package dev.leasehold.shedlock;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LeaseholdException;
import dev.leasehold.ReleaseStatus;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A ShedLock lock held as a Leasehold {@link Lease}: what {@link LeaseholdLockProvider#lock} returns.
 * {@link #lease()} gives the lease: its {@link Lease#token() fencing token} for every write the job
 * makes, and {@link Lease#lost()} / {@link Lease#isValid()} to notice that the lock ran out
 * ({@code lockAtMostFor} passed) while the job still runs.
 *
 * <p>As ShedLock requires, a lock is used once: after {@link #unlock()} or {@link #extend} (whatever
 * its outcome) every further call throws {@link IllegalStateException}. Thread-safe.
 */
public final class LeaseholdSimpleLock implements SimpleLock {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseholdSimpleLock.class);

    private final Lease lease;
    /** {@code nanoTime} at which ShedLock's {@code lockAtMostFor} ends: the acquire's (or extend's) send time plus it. */
    private final long atMostUntilNanos;
    /**
     * {@code nanoTime} until which an unlock keeps the lock after an {@link #extend} with a positive
     * {@code lockAtLeastFor}; {@code null} before any extension, where the lease's own
     * {@link dev.leasehold.LockOptions#holdAtLeast} (server-side) does it.
     */
    private final Long extendedHoldUntilNanos;
    private final AtomicBoolean active = new AtomicBoolean(true);
    /** This lock and its extensions (see {@link ActiveLocks}). */
    private final ActiveLocks.Chain chain;

    /** A new lock, the first of its chain. */
    LeaseholdSimpleLock(Lease lease, long atMostUntilNanos) {
        this(lease, atMostUntilNanos, null, new ActiveLocks.Chain(lease));
    }

    private LeaseholdSimpleLock(Lease lease, long atMostUntilNanos, Long extendedHoldUntilNanos, ActiveLocks.Chain chain) {
        this.lease = lease;
        this.atMostUntilNanos = atMostUntilNanos;
        this.extendedHoldUntilNanos = extendedHoldUntilNanos;
        this.chain = chain;
    }

    /** This lock and its extensions, all of one lease. */
    ActiveLocks.Chain chain() {
        return chain;
    }

    /**
     * The lease behind this lock. The same lease across {@link #extend extensions} (same token): an
     * extension lengthens it rather than taking a new one.
     */
    public Lease lease() {
        return lease;
    }

    /**
     * Unlocks: releases the lease with a compare-and-delete, so it never frees a lock that another
     * holder took after this one ran out. A lock whose {@code lockAtLeastFor} has not passed yet stays
     * held until then (by the server's own expiry, so also if this process dies now; after an
     * {@link #extend} with a {@code lockAtLeastFor}, see there). Unlocking a lock that already expired
     * is a silent no-op. A backend that cannot be reached is logged as one WARN and not thrown (the
     * job is done; the lock expires by its {@code lockAtMostFor}).
     *
     * @throws IllegalStateException if this lock was already unlocked or extended
     */
    @Override
    public void unlock() {
        claim();
        chain.end();
        ActiveLocks.remove(chain);
        if (extendedHoldUntilNanos != null) {
            long keepNanos = extendedHoldUntilNanos - System.nanoTime();
            if (keepNanos > 0) {
                // Held until then by not releasing it yet; the server's expiry (at least as late) covers a crash.
                CompletableFuture.runAsync(this::release, CompletableFuture.delayedExecutor(keepNanos, TimeUnit.NANOSECONDS));
                return;
            }
        }
        release();
    }

    /**
     * Extends the lock: asks the backend to keep the lease for {@code lockAtMostFor} from now (a
     * compare-and-extend: it succeeds only while the lease is still this holder's, and never revives a
     * lost one), and returns a new lock for it; this one is invalid afterwards, whatever the outcome.
     *
     * <p>Empty (the lock is then released, since nobody may unlock this one any more) when the lease
     * was lost, released, taken over by another holder, or when this lock's {@code lockAtMostFor} has
     * passed (even if the server still keeps it for the rounded-up minimum, see
     * {@link LeaseholdLockProvider}). An extension never shortens the server-side expiry: a shorter
     * {@code lockAtMostFor} than what is left keeps what is left ({@link Lease#extend}).
     *
     * <p>{@code lockAtLeastFor} counts from this call: the returned lock, unlocked before then, is kept
     * until then by a delayed release in this process (a lease's server-side hold counts from its
     * acquire, which an extension does not move); should the process die first, the server keeps the
     * lock until the extension's {@code lockAtMostFor} ends, which is no sooner. Closing the
     * {@link dev.leasehold.LockClient} in between releases it, keeping only what the first lock's
     * {@code lockAtLeastFor} asked for.
     *
     * @return the extended lock, or empty if the lock can not be extended
     * @throws IllegalArgumentException if either duration is null or negative, lockAtLeastFor exceeds
     *                                  lockAtMostFor, or lockAtMostFor exceeds
     *                                  {@link dev.leasehold.LockOptions#MAX_TTL}; this lock stays valid
     * @throws IllegalStateException if this lock was already unlocked or extended
     * @throws dev.leasehold.LockUnavailableException if the backend could not be reached; this lock stays
     *                                  valid (its lease keeps its old deadline) and the call may be retried
     */
    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        ShedLockDurations.checkExtension(lease.lockName(), lockAtMostFor, lockAtLeastFor);
        claim();
        long sentAt = System.nanoTime();
        if (sentAt - atMostUntilNanos >= 0 || !lease.isValid()) {
            return cannotExtend("its lockAtMostFor has passed, or its lease ended");
        }
        try {
            lease.extend(ShedLockDurations.leaseTime(lease.lockName(), lockAtMostFor));
        } catch (LeaseLostException lost) {
            return cannotExtend(lost.getMessage());
        } catch (RuntimeException unreachable) {
            active.set(true);
            throw unreachable;
        }
        return Optional.of(new LeaseholdSimpleLock(lease, sentAt + lockAtMostFor.toNanos(),
                lockAtLeastFor.isZero() ? null : sentAt + lockAtLeastFor.toNanos(), chain));
    }

    private Optional<SimpleLock> cannotExtend(String why) {
        LOG.debug("Lock '{}' (token {}) cannot be extended: {}", lease.lockName(), lease.token(), why);
        chain.end();
        ActiveLocks.remove(chain);
        release();
        return Optional.empty();
    }

    private void claim() {
        if (!active.compareAndSet(true, false)) {
            throw new IllegalStateException("Lock '" + lease.lockName() + "' is not valid: it has already been "
                    + "unlocked or extended; use the lock that extend returned");
        }
    }

    private void release() {
        try {
            if (lease.release() == ReleaseStatus.ALREADY_LOST) {
                LOG.debug("Lock '{}' (token {}) had already expired when it was unlocked; nothing to release",
                        lease.lockName(), lease.token());
            }
        } catch (LeaseholdException unreachable) {
            LOG.warn("Unlocking '{}' (token {}) failed; the lock stays taken until its lockAtMostFor ends: {}",
                    lease.lockName(), lease.token(), unreachable.getMessage());
        }
    }

    @Override
    public String toString() {
        return "LeaseholdSimpleLock{name='" + lease.lockName() + "', token=" + lease.token()
                + (active.get() ? "" : ", unlocked or extended") + "}";
    }
}
