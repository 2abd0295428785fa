package dev.leasehold.redis;

import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.ReleaseChannels;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One permit of a semaphore with a given number of permits, on one Redis server: each lease is a
 * member of the name's permits sorted set ({@code semaphore_acquire.lua},
 * {@code semaphore_release.lua}), renewed in batches by {@code renew_members.lua}, and waiters are
 * woken through {@link ReleaseChannels}, one per permit given back.
 *
 * <p>{@link Admission#SHARED}: each acquisition of a client asks the server, so one client's
 * threads can hold several permits at once. One instance per number of permits, since the
 * number of permits travels with every acquire; the server-side pieces are the client's
 * {@link RedisSemaphores}.
 */
final class RedisSemaphoreProtocol implements LockProtocol {

    private final RedisSemaphores shared;
    private final int permits;
    private final String permitsArgument;

    RedisSemaphoreProtocol(RedisSemaphores shared, int permits) {
        this.shared = shared;
        this.permits = permits;
        this.permitsArgument = Integer.toString(permits);
    }

    @Override
    public String describe() {
        return shared.server();
    }

    @Override
    public String kind() {
        return "semaphore";
    }

    @Override
    public Admission admission() {
        return Admission.SHARED;
    }

    @Override
    public boolean boundsCallsWithin(Duration timeout) {
        return shared.boundsCallsWithin(timeout);
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        LockKeys keys = LockKeys.of(request.name());
        CompletableFuture<List<Object>> reply = shared.scripts().semaphoreAcquire.run(shared.commands(),
                ScriptOutputType.MULTI, new String[] {keys.permits(), keys.fence(), keys.waiters()},
                request.holder(), Long.toString(request.ttl().toMillis()), permitsArgument,
                shared.fenceRetentionMillis(), request.subscribed() ? request.holder() : "",
                shared.waiterRegistrationMillis());
        return shared.translated(reply, request.name(), permits, "the acquire of a permit of '" + request.name() + "'")
                .thenApply(RedisSemaphoreProtocol::toAttempt);
    }

    /** Queued until {@link #flushRenewals()}, which the engine calls after each batch. */
    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return shared.renewals().add(LockKeys.of(name).permits(), holder, ttl);
    }

    /** Sends the renewals of every semaphore of this client, whichever semaphore's batch ran. */
    @Override
    public void flushRenewals() {
        shared.renewals().flush();
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return releaseScript(name, holder, "").thenApply(released -> ReleaseOutcome.single(released == 1L));
    }

    /** Keeps the permit's member live for {@code keepFor} instead of removing it ({@code release_holding_member.lua}). */
    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        CompletableFuture<Long> reply = RedisProtocol.keepMember(shared.scripts(), shared.commands(),
                LockKeys.of(name).permits(), holder, keepFor);
        return shared.translated(reply, name, permits, "the release (held " + keepFor.toMillis()
                + " ms more) of a permit of '" + name + "'").thenApply(kept -> ReleaseOutcome.single(kept == 1L));
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return releaseScript(name, holder, holder).thenApply(ignored -> null);
    }

    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return shared.channels().subscribe(LockKeys.of(name).channel(), holder);
    }

    @Override
    public ReleaseSignal subscribeIfActive(String name, String holder) {
        return shared.channels().subscribeIfActive(LockKeys.of(name).channel(), holder);
    }

    private CompletableFuture<Long> releaseScript(String name, String holder, String waiter) {
        LockKeys keys = LockKeys.of(name);
        CompletableFuture<Long> reply = shared.scripts().semaphoreRelease.run(shared.commands(),
                ScriptOutputType.INTEGER, new String[] {keys.permits(), keys.waiters()}, holder, waiter, keys.channel());
        return shared.translated(reply, name, permits, "the release of a permit of '" + name + "'");
    }

    private static Attempt toAttempt(List<Object> reply) {
        if ((Long) reply.get(0) == 1L) {
            // A decimal string: exact above 2^53, where a Lua number reply would be rounded.
            return Attempt.acquired(Long.parseLong((String) reply.get(1)));
        }
        return Attempt.held(Duration.ofMillis(Math.max(0, (Long) reply.get(1))));
    }
}
