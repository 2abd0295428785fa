package dev.leasehold.engine;

import dev.leasehold.spi.LockProtocol;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The renewals one timer event sends: one {@link SentRound} per protocol, all counted from the
 * event's start, sent once every tick of the event has run.
 */
final class RenewalRounds {

    private final RenewalScheduler scheduler;
    private final long sentAtNanos;
    private final int ticks;
    private final Map<LockProtocol, SentRound> rounds = new IdentityHashMap<>(4);
    /** The round joined last: the leases of one event almost always share one protocol. */
    private SentRound last;

    /**
     * @param sentAtNanos a {@link System#nanoTime()} taken before the event's first tick
     * @param ticks       how many ticks the event runs: a round is sized for them at first
     */
    RenewalRounds(RenewalScheduler scheduler, long sentAtNanos, int ticks) {
        this.scheduler = scheduler;
        this.sentAtNanos = sentAtNanos;
        this.ticks = ticks;
    }

    /** Adds {@code lease} to its protocol's round; {@code boundNanos} as in {@link SentRound#add}. */
    SentRound join(Renewal lease, LockProtocol protocol, long boundNanos) {
        SentRound round = last != null && last.protocol() == protocol ? last
                : rounds.computeIfAbsent(protocol, p -> new SentRound(p, scheduler, sentAtNanos, ticks));
        round.add(lease, boundNanos);
        last = round;
        return round;
    }

    /** Sends each protocol's round; one that fails only fails its own leases ({@link SentRound#send}). */
    void send() {
        for (SentRound round : rounds.values()) {
            round.send();
        }
    }
}
