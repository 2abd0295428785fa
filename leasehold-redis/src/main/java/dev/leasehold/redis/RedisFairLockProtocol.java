package dev.leasehold.redis;

import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.redis.internal.LockKeys;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The fair lock on one Redis server: exclusive, granted in the order the server saw the
 * acquisitions arrive, across every client. Every attempt registers its acquisition in the lock's
 * queue ({@link LockKeys#queue()}, {@link LockKeys#queueInfo()}), so the order is the server's,
 * never a client clock's; a release hands the lock to the first live waiter inside the release
 * script and notifies it with its token ({@code <waiter> <token> <stamp>}, a
 * {@link dev.leasehold.spi.Wake.Granted}), so a handoff costs the release's round trip and the
 * notification, no acquire (with {@link dev.leasehold.LockOptions#withReplicaAck}, an acknowledged
 * attempt too: see {@link HandoffAsRetry}). A waiter that stops trying (its process died) is skipped once its
 * registration expires. The lock key is the lock name, holding the holder id as the mutex's does,
 * so a fair lock and a mutex of the same name exclude each other (though waiters of one kind are
 * not woken by the other's release: they find out by their re-check).
 *
 * <p>See {@code fair_acquire.lua}, {@code fair_release.lua} and {@code lib_fair_queue.lua} for the
 * exact server-side steps.
 */
final class RedisFairLockProtocol extends RedisProtocol {

    private final RenewalBatch renewals;

    /** The server's waiter registration is how long a waiter keeps its place without a new attempt. */
    RedisFairLockProtocol(Server server) {
        super(server);
        this.renewals = renewals(scripts.renewBatch);
    }

    /** Every acquisition registers with the server on its first attempt: the server's order is the order. */
    @Override
    public String kind() {
        return "fair_lock";
    }

    @Override
    public Admission admission() {
        return Admission.SHARED;
    }

    /** Registers the acquisition in the queue whether or not it is subscribed yet: its place is its arrival. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        CompletableFuture<List<Object>> reply = scripts.fairAcquire.run(commands, ScriptOutputType.MULTI,
                keys(request.name()), request.holder(), Long.toString(request.ttl().toMillis()),
                fenceRetentionMillis, waiterRegistrationMillis, Long.toString(request.stamp()));
        return translated(reply, "the acquire of fair lock '" + request.name() + "'")
                .thenApply(RedisProtocol::toAttempt);
    }

    /** Queued until {@link #flushRenewals()}: the lease is the lock key, renewed like the mutex's. */
    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return renewals.add(LockKeys.of(name).lock(), holder, ttl);
    }

    @Override
    public void flushRenewals() {
        renewals.flush();
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return releaseScript(name, holder, "the release of fair lock '" + name + "'")
                .thenApply(released -> ReleaseOutcome.single(released == 1L));
    }

    /** The release script: it forgets the waiter, and passes on a lock that was handed to it. */
    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return releaseScript(name, holder, "the clean-up of an abandoned acquire of fair lock '" + name + "'")
                .thenApply(ignored -> null);
    }

    private CompletableFuture<Long> releaseScript(String name, String holder, String operation) {
        LockKeys keys = LockKeys.of(name);
        CompletableFuture<Long> reply = scripts.fairRelease.run(commands, ScriptOutputType.INTEGER, keys(name),
                holder, fenceRetentionMillis, keys.channel());
        return translated(reply, operation);
    }

    /** The keys both fair scripts take, in their order. */
    static String[] keys(String name) {
        LockKeys keys = LockKeys.of(name);
        return new String[] {keys.lock(), keys.fence(), keys.queue(), keys.queueInfo()};
    }

}
