package dev.leasehold;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A {@link Lock} view of a {@link DistributedLock}, reentrant per thread, for code written
 * against {@code java.util.concurrent}. The first {@code lock()} of a thread acquires a lease;
 * further {@code lock()}s by the same thread only count up locally (no round trip, no new
 * token); the {@code unlock()} that brings the count to zero releases the lease.
 *
 * <p>Unlike {@link Lease}, ownership here is per thread, as the {@link Lock} contract demands:
 * {@link #unlock()} from a thread that does not hold the lock throws
 * {@link IllegalMonitorStateException}. A lost lease is not hidden: the lease stays visible
 * through {@link #currentLease()}, {@code unlock()} still releases (returning quietly, as the
 * key is already gone), and a thread whose lease was lost cannot re-enter: its {@code lock()} and
 * {@code tryLock()} throw {@link LeaseLostException}, since the lease no longer holds the lock (another
 * client may). Its earlier holds are still to be unlocked.
 */
public final class ReentrantLeaseLock implements Lock {

    /**
     * One thread's hold. It keeps its view reachable (through the thread's thread-local map) for
     * as long as the thread holds, so a view shared through a weak registry cannot vanish while a
     * thread still has to unlock it.
     */
    private final class Hold {
        final Lease lease;
        int count = 1;
        @SuppressWarnings("unused")
        final ReentrantLeaseLock view = ReentrantLeaseLock.this;

        Hold(Lease lease) {
            this.lease = lease;
        }
    }

    private final DistributedLock lock;
    private final ThreadLocal<Hold> holds = new ThreadLocal<>();

    /** A view over {@code lock}; use {@link DistributedLock#asJavaLock()} to get the shared one. */
    public ReentrantLeaseLock(DistributedLock lock) {
        this.lock = lock;
    }

    /**
     * Acquires, waiting as long as it takes; an interrupt does not stop the wait (as
     * {@link Lock#lock()} requires) but is kept in the thread's flag.
     *
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LeaseLostException if this thread holds the lock through a lease that was lost
     */
    @Override
    public void lock() {
        if (reenter()) {
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                holds.set(new Hold(lock.acquire()));
                break;
            } catch (LockInterruptedException e) {
                Thread.interrupted();
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** @throws LeaseLostException if this thread holds the lock through a lease that was lost */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring '" + lock.name() + "'");
        }
        if (reenter()) {
            return;
        }
        try {
            holds.set(new Hold(lock.acquire()));
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    /** @throws LeaseLostException if this thread holds the lock through a lease that was lost */
    @Override
    public boolean tryLock() {
        if (reenter()) {
            return true;
        }
        Optional<Lease> lease = lock.tryAcquire(Duration.ZERO);
        lease.ifPresent(l -> holds.set(new Hold(l)));
        return lease.isPresent();
    }

    /** @throws LeaseLostException if this thread holds the lock through a lease that was lost */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring '" + lock.name() + "'");
        }
        if (reenter()) {
            return true;
        }
        try {
            Optional<Lease> lease = lock.tryAcquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
            lease.ifPresent(l -> holds.set(new Hold(l)));
            return lease.isPresent();
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    /**
     * Counts down this thread's holds and releases the lease at zero.
     *
     * @throws IllegalMonitorStateException if this thread does not hold the lock
     * @throws LockUnavailableException if the final release could not reach the backend (the
     *         hold is dropped anyway; the key expires by its ttl)
     */
    @Override
    public void unlock() {
        Hold hold = holds.get();
        if (hold == null) {
            throw new IllegalMonitorStateException("the current thread does not hold lock '" + lock.name() + "'");
        }
        if (--hold.count > 0) {
            return;
        }
        holds.remove();
        hold.lease.release();
    }

    /** Not supported: a condition would need a distributed wait set. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("conditions are not supported by distributed locks");
    }

    /** How many unreleased {@code lock()}s the current thread has made; 0 if it does not hold the lock. */
    public int holdCount() {
        Hold hold = holds.get();
        return hold == null ? 0 : hold.count;
    }

    /** Whether the current thread holds the lock (its lease may still have been lost: check it). */
    public boolean isHeldByCurrentThread() {
        return holds.get() != null;
    }

    /** The lease the current thread holds, with its fencing token, if any. */
    public Optional<Lease> currentLease() {
        Hold hold = holds.get();
        return hold == null ? Optional.empty() : Optional.of(hold.lease);
    }

    /** Counts up this thread's hold, if it has one whose lease is still valid; see {@link #lock()} for the throw. */
    private boolean reenter() {
        Hold hold = holds.get();
        if (hold == null) {
            return false;
        }
        hold.lease.ensureValid();
        hold.count++;
        return true;
    }
}
