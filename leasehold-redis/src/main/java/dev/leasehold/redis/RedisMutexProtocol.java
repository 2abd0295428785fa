package dev.leasehold.redis;

import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.redis.internal.ReleaseChannels;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The exclusive lock on one Redis server: acquire and release are each one script call, the
 * renewals that fall due together are one script call per {@link RenewalBatch#CHUNK} leases, and
 * waiters are woken through {@link ReleaseChannels}. See the {@code .lua} files beside this
 * class for the exact server-side steps.
 */
final class RedisMutexProtocol extends RedisProtocol {

    private final RenewalBatch renewals;
    private final MutexScripts mutex;

    RedisMutexProtocol(Server server) {
        super(server);
        this.renewals = renewals(scripts.renewBatch);
        this.mutex = scripts.mutex;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        CompletableFuture<MutexScripts.Answer> reply = mutex.acquire(commands, LockKeys.of(request.name()),
                request.holder(), request.ttl(), server.fenceRetention(), request.subscribed() ? request.holder() : null,
                server.waiterRegistration());
        return translated(reply, "the acquire of '" + request.name() + "'").thenApply(MutexScripts.Answer::toAttempt);
    }

    /** Queued until {@link #flushRenewals()}, which the engine calls after each batch. */
    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return renewals.add(LockKeys.of(name).lock(), holder, ttl);
    }

    @Override
    public void flushRenewals() {
        renewals.flush();
    }

    RenewalBatch.Stats renewalStats() {
        return renewals.stats();
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return releaseScript(name, holder, null).thenApply(ReleaseOutcome::single);
    }

    /** Sets the lock key's life to {@code keepFor} instead of deleting it ({@code release_holding.lua}). */
    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        return keepLockKey(name, holder, keepFor);
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return releaseScript(name, holder, holder).thenApply(ignored -> null);
    }

    private CompletableFuture<Boolean> releaseScript(String name, String holder, String waiter) {
        return translated(mutex.release(commands, LockKeys.of(name), holder, waiter), "the release of '" + name + "'");
    }

}
