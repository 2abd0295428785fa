package dev.leasehold.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The lease ticks that fall at one instant of the renewal grid ({@link Renewal#grid}): one timer
 * runs them all, so ten thousand leases of one ttl renewed each second cost at most eight timer
 * events a second, not ten thousand.
 *
 * <p>A tick that moves to another instant, or stops, is not taken out: it stays in the list and is
 * skipped when the slot fires ({@link RenewalScheduler.GridTick#isDueIn}), which costs less than a
 * set would on every tick. A tick added after the slot fired is refused, and its caller queues it
 * again.
 */
final class TimerSlot {

    private final long atNanos;
    private List<RenewalScheduler.GridTick> ticks = new ArrayList<>();
    private boolean fired;

    /** @param atNanos the grid instant, a {@link System#nanoTime()} */
    TimerSlot(long atNanos) {
        this.atNanos = atNanos;
    }

    long atNanos() {
        return atNanos;
    }

    /** @return false if the slot already fired */
    synchronized boolean add(RenewalScheduler.GridTick tick) {
        if (fired) {
            return false;
        }
        ticks.add(tick);
        return true;
    }

    /** Marks the slot fired and hands over what was queued in it, moved and stopped ticks included. */
    synchronized List<RenewalScheduler.GridTick> fire() {
        fired = true;
        List<RenewalScheduler.GridTick> queued = ticks;
        ticks = List.of();
        return queued;
    }

    /** Ticks still due at this slot's instant. */
    synchronized int due() {
        int due = 0;
        for (RenewalScheduler.GridTick tick : ticks) {
            if (tick.isDueIn(this)) {
                due++;
            }
        }
        return due;
    }
}
