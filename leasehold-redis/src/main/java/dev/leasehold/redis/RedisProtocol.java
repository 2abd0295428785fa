package dev.leasehold.redis;

import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.redis.internal.RedisDeployment;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.RedisScript;
import dev.leasehold.redis.internal.ReleaseChannels;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What every lock kind on one Redis server shares: the connection and scripts, waking through the
 * name's one release channel, error translation naming the server, and the reading of an acquire
 * script's reply. A kind adds its scripts and its admission rule.
 */
abstract class RedisProtocol implements LockProtocol {

    /**
     * One deployment as every kind's protocol sees it.
     *
     * @param fenceRetention     how long a fence key outlives its last write
     * @param waiterRegistration how long a waiter's registration lasts without a new attempt
     */
    record Server(RedisDeployment deployment, RedisScripts scripts, ReleaseChannels channels,
                  Duration fenceRetention, Duration waiterRegistration) {

        RedisClusterAsyncCommands<String, String> commands() {
            return deployment.commands();
        }

        String description() {
            return deployment.describe();
        }

        Duration commandTimeout() {
            return deployment.commandTimeout();
        }
    }

    final Server server;
    final RedisClusterAsyncCommands<String, String> commands;
    final RedisScripts scripts;
    final String fenceRetentionMillis;
    final String waiterRegistrationMillis;

    RedisProtocol(Server server) {
        this.server = server;
        this.commands = server.commands();
        this.scripts = server.scripts();
        this.fenceRetentionMillis = Long.toString(server.fenceRetention().toMillis());
        this.waiterRegistrationMillis = Long.toString(server.waiterRegistration().toMillis());
    }

    @Override
    public String describe() {
        return server.description();
    }

    /** True when Leasehold made the Lettuce client and set its command timeout (not for a borrowed client). */
    @Override
    public boolean boundsCallsWithin(Duration timeout) {
        return server.commandTimeout() != null && server.commandTimeout().compareTo(timeout) <= 0;
    }

    /** The name's one release channel, shared by every kind: a release of one kind wakes waiters of another too. */
    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return server.channels().subscribe(LockKeys.of(name).channel(), holder);
    }

    @Override
    public ReleaseSignal subscribeIfActive(String name, String holder) {
        return server.channels().subscribeIfActive(LockKeys.of(name).channel(), holder);
    }

    /** A renewal batch over {@code script} ({@code renew_batch.lua} or {@code renew_members.lua}). */
    RenewalBatch renewals(RedisScript script) {
        return new RenewalBatch(commands, script, server.deployment()::scriptGroup,
                error -> RedisErrors.translate(describe(), "the renewal", error));
    }

    /**
     * Keeps {@code name}'s lock key held for {@code keepFor} if {@code holder} owns it (the mutex,
     * the fair lock and the write lock hold that key): see {@link LockProtocol#releaseHolding}.
     */
    CompletableFuture<ReleaseOutcome> keepLockKey(String name, String holder, Duration keepFor) {
        return translated(scripts.mutex.releaseHolding(commands, LockKeys.of(name), holder, keepFor),
                "the release (held " + keepFor.toMillis() + " ms more) of '" + name + "'").thenApply(ReleaseOutcome::single);
    }

    /**
     * Keeps {@code holder}'s member of the sorted set {@code key} live for {@code keepFor}, if it
     * still is: the hold-at-least of a lease held as a member (read lease, semaphore permit).
     */
    static CompletableFuture<Long> keepMember(RedisScripts scripts, RedisClusterAsyncCommands<String, String> commands,
                                              String key, String holder, Duration keepFor) {
        return scripts.releaseHoldingMember.run(commands, ScriptOutputType.INTEGER, new String[] {key}, holder,
                MutexScripts.millisUp(keepFor));
    }

    /** Turns a failed reply into a {@link dev.leasehold.LockUnavailableException} naming the server. */
    <T> CompletableFuture<T> translated(CompletableFuture<T> reply, String operation) {
        return reply.exceptionallyCompose(error ->
                CompletableFuture.failedFuture(RedisErrors.translate(describe(), operation, error)));
    }

    /** An acquire script's reply: {1, token as a decimal string} or {0, ms until the holder may be gone, or -1}. */
    static Attempt toAttempt(List<Object> reply) {
        if ((Long) reply.get(0) == 1L) {
            // A decimal string: exact above 2^53, where a Lua number reply would be rounded.
            return Attempt.acquired(Long.parseLong((String) reply.get(1)));
        }
        long remaining = (Long) reply.get(1);
        return Attempt.held(remaining >= 0 ? Duration.ofMillis(remaining) : null);
    }
}
