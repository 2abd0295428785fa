package dev.leasehold.testkit.fault;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The proxy's current fault, shared by all its connections, and the waiting that applies it
 * to each chunk of bytes. A change wakes every waiting chunk, so it also applies to bytes
 * already read but not yet delivered.
 */
final class FaultState {

    enum Kind { PASS, LATENCY, BLACKHOLE, HOLD_REPLIES }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private Kind kind = Kind.PASS;
    private long latencyNanos;

    void set(Kind newKind, long newLatencyNanos) {
        lock.lock();
        try {
            kind = newKind;
            latencyNanos = newLatencyNanos;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Whether bytes read now are to be dropped at once. */
    boolean swallowing() {
        lock.lock();
        try {
            return kind == Kind.BLACKHOLE;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks until a chunk read at {@code readNanos} may be delivered: at least the current
     * latency after it was read, and, toward the client, not while replies are held.
     *
     * @return {@code false} if the chunk is to be dropped (black hole)
     * @throws InterruptedException if the connection is torn down meanwhile
     */
    boolean awaitDelivery(long readNanos, boolean towardClient) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (true) {
                if (kind == Kind.BLACKHOLE) {
                    return false;
                }
                if (kind == Kind.HOLD_REPLIES && towardClient) {
                    changed.await();
                    continue;
                }
                long wait = readNanos + latencyNanos - System.nanoTime();
                if (wait <= 0) {
                    return true;
                }
                changed.awaitNanos(wait);
            }
        } finally {
            lock.unlock();
        }
    }
}
