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
 * The write half of the Redis read-write lock: the writer holds the lock key itself (holder id,
 * {@code PX} ttl), so it excludes a plain mutex of the same name too, and enters only when no live
 * reader remains. A blocked writer registers in the name's writers set on every attempt, so new
 * readers yield to it. One acquisition per client talks to the server at a time
 * ({@link Admission#EXCLUSIVE}), like the mutex. See {@code write_acquire.lua} and
 * {@code write_release.lua}.
 */
final class RedisWriteProtocol extends RedisProtocol {

    private final RenewalBatch renewals;

    RedisWriteProtocol(Server server) {
        super(server);
        this.renewals = renewals(scripts.renewBatch);
    }

    @Override
    public String kind() {
        return "write";
    }

    @Override
    public Admission admission() {
        return Admission.EXCLUSIVE;
    }

    /** Registers the writer even unsubscribed: readers must yield from its first blocked attempt on. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        LockKeys keys = LockKeys.of(request.name());
        CompletableFuture<List<Object>> reply = scripts.writeAcquire.run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.readers(), keys.writers()},
                request.holder(), Long.toString(request.ttl().toMillis()), fenceRetentionMillis,
                waiterRegistrationMillis);
        return translated(reply, "the write acquire of '" + request.name() + "'").thenApply(RedisProtocol::toAttempt);
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

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return releaseScript(name, holder, "").thenApply(released -> ReleaseOutcome.single(released == 1L));
    }

    /** Also forgets the writer's registration, so readers need not wait for it to expire. */
    /** Sets the lock key's life to {@code keepFor} instead of deleting it ({@code release_holding.lua}). */
    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        return keepLockKey(name, holder, keepFor);
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return releaseScript(name, holder, holder).thenApply(ignored -> null);
    }

    private CompletableFuture<Long> releaseScript(String name, String holder, String waiter) {
        LockKeys keys = LockKeys.of(name);
        CompletableFuture<Long> reply = scripts.writeRelease.run(commands, ScriptOutputType.INTEGER,
                new String[] {keys.lock(), keys.writers(), keys.waiters()}, holder, waiter, keys.channel());
        return translated(reply, "the write release of '" + name + "'");
    }
}
