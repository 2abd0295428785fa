package dev.leasehold.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The backend's half of one lock kind: the few server calls that the
 * {@link dev.leasehold.engine.LeaseEngine} turns into waiting, leases, renewal and release. A
 * backend implements this once per lock kind (mutex, fair lock, read lock, write lock, semaphore
 * permit, ...) and gets the whole {@code DistributedLock} API; the kind's local rule is its
 * {@link #admission()}.
 *
 * <p>Every call is asynchronous and must not block the calling thread. A failure to reach the
 * backend completes the future exceptionally with a
 * {@link dev.leasehold.LockUnavailableException} naming the node; the engine bounds every call
 * with its own timeout.
 *
 * <p>The {@code holder} is a unique, unguessable string the engine makes per acquisition; the
 * backend stores it as the owner and compares against it in {@link #renew}, {@link #release}, {@link #releaseHolding}
 * and {@link #abandon}. It is also the acquisition's waiter id.
 */
public interface LockProtocol {

    /** Where the backend lives, without credentials, for messages. */
    String describe();

    /**
     * The lock kind, a short lower-case word reported as the {@code kind} tag of the
     * {@code leasehold.acquire.wait} meter: {@code lock} (the default), {@code fair_lock},
     * {@code read}, {@code write}, {@code semaphore}. A fixed word per protocol, never a lock name.
     */
    default String kind() {
        return "lock";
    }

    /**
     * How many nodes a {@link #release} asks, as its {@link ReleaseOutcome#nodes()} will say: 1 (the
     * default) for a single server or an ensemble that answers as one, N for a quorum of N masters.
     */
    default int nodes() {
        return 1;
    }

    /** How one client's concurrent acquisitions of one name reach the backend; by default one at a time. */
    default Admission admission() {
        return Admission.EXCLUSIVE;
    }

    /**
     * Whether one attempt can re-check for the client's other waiters of the same lock: an
     * {@link AcquireRequest#covering()} list is honoured (their registrations kept with the
     * attempt's stamp, and those found handed the lock, first in line for it or no longer
     * registered woken through their {@link ReleaseSignal}s). If so, the engine runs one re-check
     * timer per lock name (and kind) and client instead of one per waiter: a thousand waiters of a
     * {@link Admission#SHARED} kind in one client then cost one attempt per re-check period, not a
     * thousand. False by default.
     */
    default boolean coversWaiters() {
        return false;
    }

    /**
     * Whether every call of this protocol completes by itself (if need be with a timeout error)
     * within {@code timeout}. If so, the engine sets no timer of its own per call; if not (the
     * default), it bounds each call.
     */
    default boolean boundsCallsWithin(Duration timeout) {
        return false;
    }

    /**
     * One attempt to take the lock, in one round trip where the backend allows. Must never wait
     * for the lock. The engine may cancel the returned future when it gives up; a backend that
     * works in several steps (Redlock's retried rounds) stops at the next step then.
     */
    CompletableFuture<Attempt> tryAcquire(AcquireRequest request);

    /**
     * Extends the lease of {@code holder} to {@code ttl} from now, only if it still owns the lock,
     * and never shortens it: a lease that already lives longer on the server keeps its expiry (an
     * explicit {@link dev.leasehold.Lease#extend} may have set a longer one than the watchdog's ttl,
     * and the local deadline never moves back). The engine calls it for an explicit extension,
     * from the caller's thread, and calls {@link #flushRenewals()} right after, so a backend may
     * buffer renewals until then; the watchdog's renewals come through {@link #renew(RenewalRound)}.
     *
     * @return true if extended, false if another holder (or nobody) has the lock
     */
    CompletableFuture<Boolean> renew(String name, String holder, Duration ttl);

    /**
     * Renews every lease of {@code round}, each as {@link #renew(String, String, Duration)} would,
     * and answers each through the round. The engine calls it from its renewal thread with the
     * leases of this protocol whose watchdog ticks fell due together; it must not block. The
     * default renews lease by lease with {@link #renew(String, String, Duration)} and calls
     * {@link #flushRenewals()} once; a backend that can renew many leases in one call overrides it
     * to spare the future and the callback per lease.
     */
    default void renew(RenewalRound round) {
        RenewalRound.renewOneByOne(round, this);
    }

    /**
     * How long the backend itself grants the lease of {@code holder}, counted from
     * {@code sentAtNanos} ({@link System#nanoTime()}), the send time of the acquire attempt or
     * renewal of it that the backend has just confirmed; {@code null} (the default) when the ttl
     * alone bounds the lease on the backend. A backend whose lease lives as long as something
     * shorter than the ttl (a ZooKeeper session, an etcd lease's TTL) reports it here. The engine
     * makes the lease's local deadline the earlier of {@code sentAtNanos + ttl} and
     * {@code sentAtNanos + grant}, each minus its {@link dev.leasehold.LockOptions#drift(Duration)
     * drift}, and renews at a third of the shorter of the two, so the local deadline never outlasts
     * what the backend grants: a paused or cut-off holder is told before another client can be
     * granted the lock. Called after every grant and every successful renewal (or extension), on
     * any thread; must not block.
     */
    default Duration grantedFor(String holder, long sentAtNanos) {
        return null;
    }

    /** Sends the renewals buffered since the last call, if the backend buffers them. */
    default void flushRenewals() {
    }

    /**
     * Releases the lock only if {@code holder} owns it, waking (or handing the lock to) waiters if
     * there are any.
     *
     * @return whether it was ours and is now free, and on how many nodes the key was still ours
     */
    CompletableFuture<ReleaseOutcome> release(String name, String holder);

    /**
     * Ends {@code holder}'s lease but keeps the lock held on the server for {@code keepFor} more
     * (the rest of {@link dev.leasehold.LockOptions#holdAtLeast}), instead of deleting it: only
     * if {@code holder} still owns it, and whether that shortens or lengthens its server-side life.
     * The lock then frees itself by the server's own expiry, so it stays held even if this
     * process dies right after the call; until then every other acquirer finds it held, and the
     * first lease granted after it frees gets a greater token. Nobody is woken: the lock is not
     * free. The engine calls it instead of {@link #release} when a lease with holdAtLeast is
     * released (or its client closed) before {@code acquire send time + holdAtLeast}.
     *
     * <p>A backend may round {@code keepFor} up to its own granularity (whole seconds, say), never
     * down. The default fails with an {@link UnsupportedOperationException}: a backend that cannot
     * keep a lock must say so rather than delete it early.
     *
     * @param keepFor positive: how much longer the lock stays held, from the server's now
     * @return as {@link #release}: {@code released} true if the lock was ours (and is now kept for
     *         {@code keepFor}), false if another holder or nobody had it
     */
    default CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(describe() + " cannot keep lock '"
                + name + "' held after its release (LockOptions.holdAtLeast) for this lock kind; remove holdAtLeast"));
    }

    /**
     * Cleans up after an abandoned acquisition (timeout, interrupt, cancellation): releases the
     * lock if a late attempt (or a handoff) gave it to {@code holder}, and forgets {@code holder}
     * as a waiter. The engine retries it after a failure, so it must be idempotent.
     */
    CompletableFuture<Void> abandon(String name, String holder);

    /**
     * Tells the backend that the engine counts {@code holder}'s lease of {@code name} lost (its
     * deadline passed, a renewal was refused, or the backend's loss signal fired): it renews it no
     * more and releases it only if its holder calls release. A backend whose keys can outlive their
     * ttl while the client lives (etcd's keys on a session lease that the client's other leases keep
     * alive) deletes the key itself, no sooner than the ttl from now, so a holder that never calls
     * release does not block the lock for the client's life. Nothing by default: a key elsewhere
     * expires on the server. Called on the engine's threads: it must neither block nor throw.
     */
    default void leaseLost(String name, String holder) {
    }

    /**
     * Subscribes the waiting acquisition {@code holder} to release notifications for
     * {@code name}; {@link ReleaseSignal#none()} if unsupported.
     */
    ReleaseSignal subscribe(String name, String holder);

    /**
     * A subscription for {@code holder} to {@code name} if this client already has one in place
     * (another waiter's, or one kept after a recent wait), else {@code null}. With one, the first
     * attempt can register as a waiter at once; without, an uncontended acquire never pays for a
     * subscription.
     */
    default ReleaseSignal subscribeIfActive(String name, String holder) {
        return null;
    }
}
