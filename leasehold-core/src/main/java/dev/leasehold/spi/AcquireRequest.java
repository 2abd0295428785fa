package dev.leasehold.spi;

import java.time.Duration;

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
 */
public record AcquireRequest(String name, String holder, Duration ttl, boolean subscribed, long stamp) {
}
