package dev.leasehold.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The renewals of one protocol that the engine sends together: every lease whose watchdog tick
 * fell due in one timer event ({@link LockProtocol#renew(RenewalRound)}). Lease {@code i} (from 0
 * to {@link #size()} - 1) is renewed as {@link LockProtocol#renew(String, String, Duration)} would
 * renew it, and answered once, with {@link #answer} or {@link #fail}, from any thread.
 *
 * <p>The engine counts every lease of a round from one send time, taken before it handed the round
 * over, so a backend may send the leases in any order and in as many calls as it needs. It bounds
 * the round as it bounds a call: a lease not answered in time is failed for it, and an answer that
 * comes after that, or a second answer for one lease, is ignored. An answer never blocks: it only
 * moves the lease's local deadline or marks it lost.
 */
public interface RenewalRound {

    /** How many leases the round renews. */
    int size();

    /** The lock name of lease {@code lease}. */
    String name(int lease);

    /** The holder id stored for lease {@code lease}: only this holder's key may be extended. */
    String holder(int lease);

    /** The ttl lease {@code lease} is extended to, from the server's now. */
    Duration ttl(int lease);

    /**
     * The backend's answer for lease {@code lease}: true if the key was still its holder's and now
     * lives at least its ttl, false if another holder (or nobody) has it, which loses the lease at once.
     *
     * @throws IndexOutOfBoundsException if {@code lease} is not in [0, size)
     */
    void answer(int lease, boolean extended);

    /**
     * Lease {@code lease}'s renewal got no answer (the backend was unreachable, or failed the call):
     * it extends nothing; the lease is renewed again at its next tick, and lost at its local deadline
     * if no renewal succeeds before.
     *
     * @throws IndexOutOfBoundsException if {@code lease} is not in [0, size)
     */
    void fail(int lease, Throwable error);

    /**
     * Renews every lease of {@code round} with {@code protocol}'s
     * {@link LockProtocol#renew(String, String, Duration)}, one call each, answering each lease
     * from its future (a call that throws fails its lease alone), then calls
     * {@link LockProtocol#flushRenewals()} once. It is {@link LockProtocol#renew(RenewalRound)}'s
     * default, and what {@link ForwardingLockProtocol} does for a decorator that changes single
     * renewals and not rounds.
     */
    static void renewOneByOne(RenewalRound round, LockProtocol protocol) {
        for (int i = 0; i < round.size(); i++) {
            int lease = i;
            CompletableFuture<Boolean> answer;
            try {
                answer = protocol.renew(round.name(i), round.holder(i), round.ttl(i));
            } catch (RuntimeException failure) {
                round.fail(i, failure);
                continue;
            }
            answer.whenComplete((extended, error) -> {
                if (error != null) {
                    round.fail(lease, error);
                } else {
                    round.answer(lease, extended);
                }
            });
        }
        protocol.flushRenewals();
    }
}
