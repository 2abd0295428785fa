package dev.leasehold.redis;

import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.ReleaseChannels;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;

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
 * notification, no acquire. A waiter that stops trying (its process died) is skipped once its
 * registration expires. The lock key is the lock name, holding the holder id as the mutex's does,
 * so a fair lock and a mutex of the same name exclude each other (though waiters of one kind are
 * not woken by the other's release: they find out by their re-check).
 *
 * <p>See {@code fair_acquire.lua}, {@code fair_release.lua} and {@code lib_fair_queue.lua} for the
 * exact server-side steps.
 */
final class RedisFairLockProtocol implements LockProtocol {

    private final RedisAsyncCommands<String, String> commands;
    private final RenewalBatch renewals;
    private final Duration commandTimeout;
    private final RedisScripts scripts;
    private final ReleaseChannels channels;
    private final String server;
    private final String fenceRetentionMillis;
    private final String waiterRegistrationMillis;

    /**
     * @param waiterRegistration how long a waiter keeps its place without a new attempt; it must
     *                           exceed the longest pause between a live waiter's attempts
     * @param commandTimeout     the Lettuce client's command timeout when Leasehold set it, else null
     */
    RedisFairLockProtocol(RedisAsyncCommands<String, String> commands, RedisScripts scripts, ReleaseChannels channels,
                          String server, Duration fenceRetention, Duration waiterRegistration, Duration commandTimeout) {
        this.commands = commands;
        this.commandTimeout = commandTimeout;
        this.renewals = new RenewalBatch(commands, scripts.renewBatch,
                error -> RedisErrors.translate(server, "the renewal", error));
        this.scripts = scripts;
        this.channels = channels;
        this.server = server;
        this.fenceRetentionMillis = Long.toString(fenceRetention.toMillis());
        this.waiterRegistrationMillis = Long.toString(waiterRegistration.toMillis());
    }

    @Override
    public String describe() {
        return server;
    }

    /** Every acquisition registers with the server on its first attempt: the server's order is the order. */
    @Override
    public Admission admission() {
        return Admission.SHARED;
    }

    /** True when Leasehold made the Lettuce client and set its command timeout (not for a borrowed client). */
    @Override
    public boolean boundsCallsWithin(Duration timeout) {
        return commandTimeout != null && commandTimeout.compareTo(timeout) <= 0;
    }

    /** Registers the acquisition in the queue whether or not it is subscribed yet: its place is its arrival. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        CompletableFuture<List<Object>> reply = scripts.fairAcquire.run(commands, ScriptOutputType.MULTI,
                keys(request.name()), request.holder(), Long.toString(request.ttl().toMillis()),
                fenceRetentionMillis, waiterRegistrationMillis, Long.toString(request.stamp()));
        return translated(reply, "the acquire of fair lock '" + request.name() + "'")
                .thenApply(RedisFairLockProtocol::toAttempt);
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

    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return channels.subscribe(LockKeys.of(name).channel(), holder);
    }

    @Override
    public ReleaseSignal subscribeIfActive(String name, String holder) {
        return channels.subscribeIfActive(LockKeys.of(name).channel(), holder);
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

    private <T> CompletableFuture<T> translated(CompletableFuture<T> reply, String operation) {
        return reply.exceptionallyCompose(error ->
                CompletableFuture.failedFuture(RedisErrors.translate(server, operation, error)));
    }

    private static Attempt toAttempt(List<Object> reply) {
        if ((Long) reply.get(0) == 1L) {
            // A decimal string: exact above 2^53, where a Lua number reply would be rounded.
            return Attempt.acquired(Long.parseLong((String) reply.get(1)));
        }
        long remaining = (Long) reply.get(1);
        return Attempt.held(remaining >= 0 ? Duration.ofMillis(remaining) : null);
    }
}
