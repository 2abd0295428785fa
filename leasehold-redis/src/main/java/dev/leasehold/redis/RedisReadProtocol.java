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
 * The read half of the Redis read-write lock: a read lease is a member of the name's readers set
 * (holder id -> lease expiry), admitted while no writer holds the lock key and no live writer is
 * registered as waiting. Every acquisition goes to the server ({@link Admission#SHARED}): readers
 * of one client hold together. See {@code read_acquire.lua} and {@code read_release.lua}.
 */
final class RedisReadProtocol extends RedisProtocol {

    private final RenewalBatch renewals;

    RedisReadProtocol(Server server) {
        super(server);
        this.renewals = renewals(scripts.renewMembers);
    }

    @Override
    public String kind() {
        return "read";
    }

    @Override
    public Admission admission() {
        return Admission.SHARED;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        LockKeys keys = LockKeys.of(request.name());
        CompletableFuture<List<Object>> reply = scripts.readAcquire.run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.readers(), keys.writers(), keys.waiters()},
                request.holder(), Long.toString(request.ttl().toMillis()), fenceRetentionMillis,
                request.subscribed() ? request.holder() : "", waiterRegistrationMillis);
        return translated(reply, "the read acquire of '" + request.name() + "'").thenApply(RedisProtocol::toAttempt);
    }

    /** Queued until {@link #flushRenewals()}, which the engine calls after each batch. */
    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return renewals.add(LockKeys.of(name).readers(), holder, ttl);
    }

    @Override
    public void flushRenewals() {
        renewals.flush();
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return releaseScript(name, holder, "").thenApply(released -> ReleaseOutcome.single(released == 1L));
    }

    /** Keeps the reader's member live for {@code keepFor} instead of removing it ({@code release_holding_member.lua}). */
    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        return translated(keepMember(scripts, commands, LockKeys.of(name).readers(), holder, keepFor),
                "the read release (held " + keepFor.toMillis() + " ms more) of '" + name + "'")
                .thenApply(kept -> ReleaseOutcome.single(kept == 1L));
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return releaseScript(name, holder, holder).thenApply(ignored -> null);
    }

    private CompletableFuture<Long> releaseScript(String name, String holder, String waiter) {
        LockKeys keys = LockKeys.of(name);
        CompletableFuture<Long> reply = scripts.readRelease.run(commands, ScriptOutputType.INTEGER,
                new String[] {keys.readers(), keys.writers(), keys.waiters()}, holder, waiter, keys.channel());
        return translated(reply, "the read release of '" + name + "'");
    }
}
