package dev.leasehold.spi;

import java.time.Duration;
import java.util.List;

/**
 * One attempt to take a lock, as the engine asks a {@link LockProtocol} for it.
 *
 * @param name       the lock name
 * @param holder     the acquisition's unique, unguessable id: stored as the owner when granted,
 *                   and also the acquisition's waiter id (its place in a server-side queue, the
 *                   address of a handoff)
 * @param ttl        how long the lease lives on the backend without renewal
 * @param subscribed whether the acquisition listens for release notifications, so registering it
 *                   as a waiter to be woken is worthwhile; a fair lock queues it either way
 * @param stamp      identifies this attempt among the acquisition's attempts; a backend that hands
 *                   the lock to a queued waiter inside a release echoes the stamp of the waiter's
 *                   last attempt it processed in {@link Wake.Granted}, so the engine counts the
 *                   lease from that attempt's send, which preceded the handoff
 * @param covering   the waiter ids of the same client's other waiting acquisitions of this lock
 *                   (and kind) that this attempt re-checks for; empty unless the protocol
 *                   {@link LockProtocol#coversWaiters() covers waiters}. The backend keeps their
 *                   registrations as if each had attempted with this {@code stamp} (which the
 *                   engine records as theirs), and wakes, through their {@link ReleaseSignal}s,
 *                   those it finds handed the lock, first in line for it, or no longer registered
 */
public record AcquireRequest(String name, String holder, Duration ttl, boolean subscribed, long stamp,
                             List<String> covering) {

    /** @throws NullPointerException if {@code covering} is null */
    public AcquireRequest {
        covering = List.copyOf(covering);
    }

    /** An attempt for its own acquisition only. */
    public AcquireRequest(String name, String holder, Duration ttl, boolean subscribed, long stamp) {
        this(name, holder, ttl, subscribed, stamp, List.of());
    }
}
