package dev.leasehold.engine;

import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.RenewalRound;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The renewals of one protocol that leave in one timer event, as the engine hands them to
 * {@link LockProtocol#renew(RenewalRound)}: one send time for all, one timer that fails whatever is
 * still unanswered when the shortest bound of its leases runs out, and each answer passed straight
 * to its lease's {@link Renewal}, without a future per lease.
 */
final class SentRound implements RenewalRound {

    private final LockProtocol protocol;
    private final RenewalScheduler scheduler;
    private final long sentAtNanos;
    private Renewal[] leases;
    private int size;
    private long boundNanos = Long.MAX_VALUE;
    private final AtomicInteger unanswered = new AtomicInteger();
    private volatile RenewalScheduler.RoundTimer timer;

    /**
     * @param sentAtNanos the {@link System#nanoTime()} taken before any lease of the round is sent:
     *                    every lease's new local deadline is counted from it
     * @param expected    how many leases it is sized for at first; it grows as needed
     */
    SentRound(LockProtocol protocol, RenewalScheduler scheduler, long sentAtNanos, int expected) {
        this.protocol = protocol;
        this.scheduler = scheduler;
        this.leases = new Renewal[Math.max(1, expected)];
        this.sentAtNanos = sentAtNanos;
    }

    LockProtocol protocol() {
        return protocol;
    }

    long sentAtNanos() {
        return sentAtNanos;
    }

    /**
     * Adds a lease before the round is sent; {@code boundNanos} is how long its renewal may take
     * ({@link CallTimeouts#limitNanos}), {@link Long#MAX_VALUE} for no bound of the engine's own.
     */
    void add(Renewal lease, long boundNanos) {
        if (size == leases.length) {
            leases = Arrays.copyOf(leases, size * 2);
        }
        leases[size++] = lease;
        this.boundNanos = Math.min(this.boundNanos, boundNanos);
    }

    /**
     * Sets the round's timer, then hands the round to its protocol. A protocol that throws fails
     * every lease it had not answered yet, so each is renewed again at its next tick.
     */
    void send() {
        unanswered.set(size);
        if (boundNanos != Long.MAX_VALUE) {
            timer = scheduler.roundTimer(this::timeOut, boundNanos);
        }
        try {
            protocol.renew(this);
        } catch (RuntimeException failure) {
            failAll(failure);
        }
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public String name(int lease) {
        return at(lease).lockName();
    }

    @Override
    public String holder(int lease) {
        return at(lease).holder();
    }

    @Override
    public Duration ttl(int lease) {
        return at(lease).ttl();
    }

    @Override
    public void answer(int lease, boolean extended) {
        if (at(lease).answered(this, extended)) {
            answered();
        }
    }

    @Override
    public void fail(int lease, Throwable error) {
        if (at(lease).failed(this, error)) {
            answered();
        }
    }

    private Renewal at(int lease) {
        return leases[Objects.checkIndex(lease, size)];
    }

    private void answered() {
        if (unanswered.decrementAndGet() == 0) {
            RenewalScheduler.RoundTimer pending = timer;
            if (pending != null) {
                pending.cancel();
            }
        }
    }

    /** The bound ran out: a timeout without a message, as a bounded call fails (see {@link Renewal}'s log line). */
    private void timeOut() {
        failAll(new TimeoutException());
    }

    private void failAll(Throwable error) {
        for (int i = 0; i < size; i++) {
            fail(i, error);
        }
    }
}
