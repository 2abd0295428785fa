package dev.leasehold.redis;

import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.ReleaseChannels;
import io.lettuce.core.api.async.RedisAsyncCommands;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the two halves of the Redis read-write lock share: the connection, the scripts, waking
 * through the name's release channel, and the reading of an acquire script's reply. Keys: the
 * writer holds the lock key itself; readers are members of {@link LockKeys#readers()}; waiting
 * writers register in {@link LockKeys#writers()}, waiting readers in {@link LockKeys#waiters()}.
 */
abstract sealed class ReadWriteProtocol implements LockProtocol permits RedisReadProtocol, RedisWriteProtocol {

    final RedisAsyncCommands<String, String> commands;
    final RedisScripts scripts;
    final String fenceRetentionMillis;
    final String waiterRegistrationMillis;
    private final ReleaseChannels channels;
    private final String server;
    private final Duration commandTimeout;

    /**
     * @param commandTimeout the Lettuce client's command timeout when Leasehold set it, else {@code null}
     */
    ReadWriteProtocol(RedisAsyncCommands<String, String> commands, RedisScripts scripts, ReleaseChannels channels,
                      String server, Duration fenceRetention, Duration waiterRegistration, Duration commandTimeout) {
        this.commands = commands;
        this.scripts = scripts;
        this.channels = channels;
        this.server = server;
        this.commandTimeout = commandTimeout;
        this.fenceRetentionMillis = Long.toString(fenceRetention.toMillis());
        this.waiterRegistrationMillis = Long.toString(waiterRegistration.toMillis());
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

    /** The name's one release channel, shared with the mutex: a writer's release wakes its waiters too. */
    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return channels.subscribe(LockKeys.of(name).channel(), holder);
    }

    @Override
    public ReleaseSignal subscribeIfActive(String name, String holder) {
        return channels.subscribeIfActive(LockKeys.of(name).channel(), holder);
    }

    /** Turns a failed reply into a {@link dev.leasehold.LockUnavailableException} naming the server. */
    <T> CompletableFuture<T> translated(CompletableFuture<T> reply, String operation) {
        return reply.exceptionallyCompose(error ->
                CompletableFuture.failedFuture(RedisErrors.translate(server, operation, error)));
    }

    /** An acquire script's reply: {1, token} or {0, ms until the blocker may be gone, -1 if unknown}. */
    static Attempt toAttempt(List<Object> reply) {
        if ((Long) reply.get(0) == 1L) {
            // A decimal string: exact above 2^53, where a Lua number reply would be rounded.
            return Attempt.acquired(Long.parseLong((String) reply.get(1)));
        }
        long remaining = (Long) reply.get(1);
        return Attempt.held(remaining >= 0 ? Duration.ofMillis(remaining) : null);
    }
}
