package dev.leasehold.integration;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LeaseSource;
import dev.leasehold.LockInterruptedException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;
import org.springframework.integration.support.locks.DistributedLock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One key's lock in a {@link LeaseholdLockRegistry}: a Spring Integration {@link DistributedLock}
 * backed by a Leasehold lease. Obtain it with {@link LeaseholdLockRegistry#obtain(Object)}.
 *
 * <p>The first lock of a thread acquires a lease on the backend (after waiting, locally, for any other
 * thread of the same registry that holds it); further locks by the same thread only count up, with
 * no round trip and no new token, and the unlock that brings the count to zero releases the lease.
 * Every acquire either holds the lock or says why not: an elapsed wait is {@code false}, an
 * unreachable backend is a {@link LockUnavailableException} (the lock is then not held), an interrupt
 * during {@link #lockInterruptibly()} or a timed {@code tryLock} is an {@link InterruptedException}
 * (nothing is left held on the backend). {@link #lock()} and {@link #tryLock()} are not interruptible:
 * they keep the interrupt in the thread's flag.
 *
 * <p><b>ttl.</b> {@link #lock(Duration)} and {@link #tryLock(Duration, Duration)} take the lease with
 * this ttl in the registry's mode (watchdog or fixed lease); the other methods with the registry's
 * {@link LockOptions}. Re-entry keeps the held lease as it is: use
 * {@link LeaseholdLockRegistry#renewLock(Object, Duration)} to extend it.
 *
 * <p><b>Lost leases.</b> While the owning thread holds the lock, its lease may be lost (see
 * {@link LeaseholdLockRegistry}). A further lock by that thread then throws {@link LeaseLostException}
 * (its hold count unchanged), and its last {@link #unlock()} throws {@link LockLostException} after
 * dropping the hold; the next lock acquires a new lease.
 */
public final class LeaseholdLock implements DistributedLock {

    private static final long MAX_WAIT_NANOS = LeaseSource.MAX_WAIT.toNanos();

    private final LeaseholdLockRegistry registry;
    private final String key;

    LeaseholdLock(LeaseholdLockRegistry registry, String key) {
        this.registry = registry;
        this.key = key;
    }

    /**
     * Acquires, waiting as long as it takes, with the registry's options.
     *
     * @throws LeaseLostException       if the current thread holds this lock and its lease was lost
     * @throws LockUnavailableException if the backend cannot be reached
     */
    @Override
    public void lock() {
        lockUninterruptibly(null);
    }

    /**
     * Acquires, waiting as long as it takes, a lease of this ttl in the registry's mode.
     *
     * @throws IllegalArgumentException if ttl is null or outside [{@link LockOptions#MIN_TTL}, {@link LockOptions#MAX_TTL}]
     * @throws LeaseLostException       if the current thread holds this lock and its lease was lost
     * @throws LockUnavailableException if the backend cannot be reached
     */
    @Override
    public void lock(Duration ttl) {
        lockUninterruptibly(registry.optionsWithTtl(ttl));
    }

    /**
     * Acquires, waiting as long as it takes, unless interrupted.
     *
     * @throws InterruptedException     if the thread was interrupted before or while waiting (nothing is held)
     * @throws LeaseLostException       if the current thread holds this lock and its lease was lost
     * @throws LockUnavailableException if the backend cannot be reached
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(null, -1, true);
    }

    /**
     * Tries once, without waiting for another holder: {@code true} if the lock is now held. One round
     * trip to the backend unless another thread of this registry holds the lock (then {@code false}
     * at once) or this thread does (then {@code true} at once).
     *
     * @throws LeaseLostException       if the current thread holds this lock and its lease was lost
     * @throws LockUnavailableException if the backend cannot be reached
     */
    @Override
    public boolean tryLock() {
        try {
            return acquire(null, 0, false);
        } catch (InterruptedException impossible) {
            throw new IllegalStateException("an uninterruptible attempt was interrupted", impossible);
        }
    }

    /**
     * Waits up to {@code time} for the lock (not at all if it is 0 or less, at most
     * {@link LeaseSource#MAX_WAIT}): {@code true} if it is now held, {@code false} if the wait elapsed.
     *
     * @throws InterruptedException     if the thread was interrupted before or while waiting (nothing is held)
     * @throws LeaseLostException       if the current thread holds this lock and its lease was lost
     * @throws LockUnavailableException if the backend cannot be reached
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return acquire(null, unit.toNanos(Math.max(0, time)), true);
    }

    /**
     * {@link #tryLock(long, TimeUnit)} for a lease of this ttl in the registry's mode.
     *
     * @throws IllegalArgumentException if waitTime is null, or ttl is null or outside
     *                                  [{@link LockOptions#MIN_TTL}, {@link LockOptions#MAX_TTL}]
     * @throws InterruptedException     if the thread was interrupted before or while waiting (nothing is held)
     * @throws LeaseLostException       if the current thread holds this lock and its lease was lost
     * @throws LockUnavailableException if the backend cannot be reached
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        if (waitTime == null) {
            throw new IllegalArgumentException("waitTime must not be null (Duration.ZERO tries once)");
        }
        LockOptions ttlOptions = registry.optionsWithTtl(ttl);
        return acquire(ttlOptions, waitTime.isNegative() ? 0 : saturatedNanos(waitTime), true);
    }

    /**
     * Counts down the current thread's holds, and at zero releases the lease (a compare-and-delete
     * that never removes another holder's lock).
     *
     * @throws IllegalMonitorStateException if the current thread does not hold this lock
     * @throws LockLostException            if the lease had been lost before this last unlock; the
     *                                      thread no longer holds the lock
     * @throws LockUnavailableException     if the release could not reach the backend; the thread no
     *                                      longer holds the lock, and the backend frees it by its ttl
     */
    @Override
    public void unlock() {
        KeyState state = registry.existing(key);
        if (state == null || !state.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("the current thread does not hold lock '" + lockName() + "'");
        }
        if (state.local.getHoldCount() > 1) {
            state.local.unlock();
            return;
        }
        Lease lease = state.lease;
        state.lease = null;
        try {
            LeaseLostException lostBefore = lossOf(lease);
            if (lease.release() == ReleaseStatus.ALREADY_LOST) {
                throw new LockLostException(lostBefore != null ? lostBefore
                        : new LeaseLostException(lease.lockName(), lease.token(),
                                "the release found the lock gone from the backend or held by another"));
            }
        } finally {
            state.touch();
            state.local.unlock();
            registry.leave(state);
        }
    }

    /** Not supported: a condition would need a distributed wait set. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("conditions are not supported by distributed locks");
    }

    /** The lock's name on the backend: the key, or {@code registryKey:key}. */
    public String lockName() {
        return registry.lockName(key);
    }

    /** The lease the current thread holds on this lock, with its fencing token; empty if it holds none. */
    public Optional<Lease> currentLease() {
        return registry.currentLease(key);
    }

    /** Whether the current thread holds this lock (its lease may still have been lost: check it). */
    public boolean isHeldByCurrentThread() {
        KeyState state = registry.existing(key);
        return state != null && state.local.isHeldByCurrentThread();
    }

    /** How many unreleased locks the current thread has made on this lock; 0 if it does not hold it. */
    public int holdCount() {
        KeyState state = registry.existing(key);
        return state == null ? 0 : state.local.getHoldCount();
    }

    @Override
    public String toString() {
        return "LeaseholdLock[" + lockName() + "]";
    }

    private void lockUninterruptibly(LockOptions ttlOptions) {
        try {
            acquire(ttlOptions, -1, false);
        } catch (InterruptedException impossible) {
            throw new IllegalStateException("an uninterruptible acquire was interrupted", impossible);
        }
    }

    /**
     * The one acquire path.
     *
     * @param ttlOptions    the lease's options, or null for the registry's
     * @param waitNanos     how long to wait (at most {@link LeaseSource#MAX_WAIT}), or -1 for as long as it takes
     * @param interruptible whether an interrupt ends the wait (else it is kept in the thread's flag)
     */
    private boolean acquire(LockOptions ttlOptions, long waitNanos, boolean interruptible) throws InterruptedException {
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before locking '" + lockName() + "'");
        }
        boolean unbounded = waitNanos < 0;
        long deadline = System.nanoTime() + Math.min(waitNanos, MAX_WAIT_NANOS);
        KeyState state = registry.enter(key);
        boolean firstHold = false;
        try {
            if (!lockLocally(state.local, unbounded ? -1 : Math.min(waitNanos, MAX_WAIT_NANOS), interruptible)) {
                return false;
            }
            if (state.local.getHoldCount() > 1) {
                reenter(state);
                return true;
            }
            Optional<Lease> lease;
            try {
                lease = acquireRemotely(registry.remote(state, ttlOptions), unbounded, deadline, interruptible);
            } catch (RuntimeException | Error | InterruptedException failed) {
                state.local.unlock();
                throw failed;
            }
            if (lease.isEmpty()) {
                state.local.unlock();
                return false;
            }
            state.lease = lease.get();
            state.touch();
            firstHold = true;
            return true;
        } finally {
            // The first hold keeps counting as a user until its last unlock; anything else stops here.
            if (!firstHold) {
                registry.leave(state);
            }
        }
    }

    private static boolean lockLocally(ReentrantLock local, long waitNanos, boolean interruptible)
            throws InterruptedException {
        if (waitNanos < 0) {
            if (interruptible) {
                local.lockInterruptibly();
            } else {
                local.lock();
            }
            return true;
        }
        return interruptible ? local.tryLock(waitNanos, TimeUnit.NANOSECONDS) : local.tryLock();
    }

    /** A re-entry of a lease already lost would let the holder carry on unaware: refuse it. */
    private void reenter(KeyState state) {
        Lease held = state.lease;
        if (held.isValid()) {
            return;
        }
        state.local.unlock();
        LeaseLostException refused = new LeaseLostException(held.lockName(), held.token(),
                "the current thread locked it again after its lease was lost; unlock() the "
                        + state.local.getHoldCount() + " hold(s) it still has (the last unlock reports the loss), "
                        + "then lock again for a new lease");
        refused.initCause(lossOf(held));
        throw refused;
    }

    /** Why the lease is no longer valid, or null while it is. */
    private static LeaseLostException lossOf(Lease lease) {
        try {
            lease.ensureValid();
            return null;
        } catch (LeaseLostException lost) {
            return lost;
        }
    }

    private static Optional<Lease> acquireRemotely(dev.leasehold.DistributedLock remote, boolean unbounded,
            long deadline, boolean interruptible) throws InterruptedException {
        if (interruptible) {
            try {
                return attempt(remote, unbounded, deadline);
            } catch (LockInterruptedException interrupt) {
                Thread.interrupted();
                throw (InterruptedException) interrupt.getCause();
            }
        }
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return attempt(remote, unbounded, deadline);
                } catch (LockInterruptedException interrupt) {
                    Thread.interrupted();
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Optional<Lease> attempt(dev.leasehold.DistributedLock remote, boolean unbounded, long deadline) {
        if (unbounded) {
            return Optional.of(remote.acquire());
        }
        return remote.tryAcquire(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
