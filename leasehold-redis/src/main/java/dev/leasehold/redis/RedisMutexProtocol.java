package dev.leasehold.redis;

import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.ReleaseChannels;
import io.lettuce.core.api.async.RedisAsyncCommands;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The exclusive lock on one Redis server: acquire and release are each one script call, the
 * renewals that fall due together are one script call per {@link RenewalBatch#CHUNK} leases, and
 * waiters are woken through {@link ReleaseChannels}. See the {@code .lua} files beside this
 * class for the exact server-side steps.
 */
final class RedisMutexProtocol implements LockProtocol {

    private final RedisAsyncCommands<String, String> commands;
    private final RenewalBatch renewals;
    private final Duration commandTimeout;
    private final MutexScripts mutex;
    private final ReleaseChannels channels;
    private final String server;
    private final Duration fenceRetention;
    private final Duration waiterRegistration;

    RedisMutexProtocol(RedisAsyncCommands<String, String> commands, RedisScripts scripts, ReleaseChannels channels,
                       String server, Duration fenceRetention, Duration waiterRegistration, Duration commandTimeout) {
        this.commands = commands;
        this.commandTimeout = commandTimeout;
        this.renewals = new RenewalBatch(commands, scripts.renewBatch,
                error -> RedisErrors.translate(server, "the renewal", error));
        this.mutex = scripts.mutex;
        this.channels = channels;
        this.server = server;
        this.fenceRetention = fenceRetention;
        this.waiterRegistration = waiterRegistration;
    }

    @Override
    public String describe() {
        return server;
    }

    /** True when Leasehold made the Lettuce client and set its command timeout (not for a borrowed client). */
    @Override
    public boolean boundsCallsWithin(Duration timeout) {
        return commandTimeout != null && commandTimeout.compareTo(timeout) <= 0;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        CompletableFuture<MutexScripts.Answer> reply = mutex.acquire(commands, LockKeys.of(request.name()),
                request.holder(), request.ttl(), fenceRetention, request.subscribed() ? request.holder() : null,
                waiterRegistration);
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

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return releaseScript(name, holder, null).thenApply(ReleaseOutcome::single);
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return releaseScript(name, holder, holder).thenApply(ignored -> null);
    }

    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return channels.subscribe(LockKeys.of(name).channel(), holder);
    }

    @Override
    public ReleaseSignal subscribeIfActive(String name, String holder) {
        return channels.subscribeIfActive(LockKeys.of(name).channel(), holder);
    }

    private CompletableFuture<Boolean> releaseScript(String name, String holder, String waiter) {
        return translated(mutex.release(commands, LockKeys.of(name), holder, waiter), "the release of '" + name + "'");
    }

    private <T> CompletableFuture<T> translated(CompletableFuture<T> reply, String operation) {
        return reply.exceptionallyCompose(error ->
                CompletableFuture.failedFuture(RedisErrors.translate(server, operation, error)));
    }
}
