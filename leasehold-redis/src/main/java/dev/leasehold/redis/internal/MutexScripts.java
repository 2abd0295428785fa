package dev.leasehold.redis.internal;

import dev.leasehold.spi.Attempt;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The exclusive lock's scripts on one server ({@code acquire.lua}, {@code release.lua},
 * {@code renew.lua}) and the one place that knows their keys, their argument order and their
 * replies. The single-server mutex and each Redlock node call them here, so the two cannot drift
 * apart and a single-server client and a Redlock client exclude each other on a shared server.
 *
 * <p>Public so other Redis-based backends (leasehold-redlock) use it; not meant for applications.
 */
public final class MutexScripts {

    private final RedisScript acquire;
    private final RedisScript release;
    private final RedisScript renew;
    private final RedisScript releaseHolding;

    /** The scripts of one server: plain {@code PUBLISH}, a woken waiter addressed on its client's channel. */
    public MutexScripts() {
        this(false, true);
    }

    /**
     * @param sharded        publish with {@code SPUBLISH} (see {@link RedisScript#withShardedPublish()})
     * @param clientChannels wake one waiter on its client's channel (see {@link RedisDeployment#clientChannels()})
     */
    public MutexScripts(boolean sharded, boolean clientChannels) {
        this.acquire = RedisScript.load("acquire.lua");
        this.release = RedisScript.load("release.lua").forDeployment(sharded, clientChannels);
        this.renew = RedisScript.load("renew.lua");
        this.releaseHolding = RedisScript.load("release_holding.lua");
    }

    /**
     * What one server answered to an acquire, of any kind: every acquire script replies
     * {@code {1, token as a decimal string}} or {@code {0, ms until what blocks it may be gone, or a
     * negative number when unknown}}, the fair lock's followed by the covered waiters to wake
     * ({@code fair_acquire.lua}).
     */
    public sealed interface Answer {

        /** The one decoder of an acquire script's reply. */
        static Answer of(List<Object> reply) {
            List<String> wake = reply.subList(2, reply.size()).stream().map(String.class::cast).toList();
            return (Long) reply.get(0) == 1L
                    // A decimal string: exact above 2^53, where a Lua number reply would be rounded.
                    ? new Granted(Long.parseLong((String) reply.get(1)), wake)
                    : new Held((Long) reply.get(1), wake);
        }

        /** The waiters the attempt covered that must attempt themselves; empty for an attempt that covered none. */
        List<String> wake();

        /** Granted, with this server's token (exact: read from a decimal string). */
        record Granted(long token, List<String> wake) implements Answer {
        }

        /** Held: what blocks it lives {@code pttlMillis} more (negative: unknown, no TTL or no key). */
        record Held(long pttlMillis, List<String> wake) implements Answer {
        }

        /** The engine's view of this answer. */
        default Attempt toAttempt() {
            if (this instanceof Granted granted) {
                return Attempt.acquired(granted.token());
            }
            long pttl = ((Held) this).pttlMillis();
            return Attempt.held(pttl >= 0 ? Duration.ofMillis(pttl) : null);
        }
    }

    /**
     * Runs {@code acquire.lua}: takes {@code keys.lock()} for {@code holder} with a new token, or
     * registers {@code waiter} (when not null) and reports the holder's remaining ttl.
     */
    public CompletableFuture<Answer> acquire(RedisClusterAsyncCommands<String, String> commands, LockKeys keys, String holder,
                                             Duration ttl, Duration fenceRetention, String waiter,
                                             Duration waiterRegistration) {
        return acquire(commands, new String[] {keys.lock(), keys.fence(), keys.waiters()}, holder, ttl,
                fenceRetention, waiter, waiterRegistration);
    }

    /**
     * Runs {@code acquire.lua} as {@link #acquire} does, where live read leases of the name also block
     * the mutex (a single Redis deployment's lock family; a Redlock node has no readers).
     */
    public CompletableFuture<Answer> acquireInLockFamily(RedisClusterAsyncCommands<String, String> commands,
                                                         LockKeys keys, String holder, Duration ttl,
                                                         Duration fenceRetention, String waiter,
                                                         Duration waiterRegistration) {
        return acquire(commands, new String[] {keys.lock(), keys.fence(), keys.waiters(), keys.readers()}, holder,
                ttl, fenceRetention, waiter, waiterRegistration);
    }

    private CompletableFuture<Answer> acquire(RedisClusterAsyncCommands<String, String> commands, String[] keys,
                                              String holder, Duration ttl, Duration fenceRetention, String waiter,
                                              Duration waiterRegistration) {
        CompletableFuture<List<Object>> reply = acquire.run(commands, ScriptOutputType.MULTI, keys,
                holder, millis(ttl), millis(fenceRetention), waiter == null ? "" : waiter, millis(waiterRegistration));
        return reply.thenApply(Answer::of);
    }

    /**
     * Runs {@code release.lua}: deletes the key if {@code holder} owns it, forgets {@code waiter}
     * (when not null) and wakes one registered waiter, without reserving the key for it (a Redlock
     * node's release).
     *
     * @return true if the key was the holder's
     */
    public CompletableFuture<Boolean> release(RedisClusterAsyncCommands<String, String> commands, LockKeys keys, String holder,
                                              String waiter) {
        return release(commands, new String[] {keys.lock(), keys.waiters()}, keys, holder, waiter, "");
    }

    /**
     * Runs {@code release.lua} as {@link #release(RedisClusterAsyncCommands, LockKeys, String, String)}
     * does, and reserves the freed key for the woken waiter for {@code reservation}
     * ({@code lib_handoff.lua}): a single server's release, where the woken waiter then takes the
     * lock before a client that releases and re-acquires at once. A reservation made for
     * {@code waiter} is passed on to the next waiter. Nothing is reserved while a semaphore of the
     * name is in use: its waiters share the waiters key, and never claim a reservation.
     *
     * @return true if the key was the holder's
     */
    public CompletableFuture<Boolean> releaseReserving(RedisClusterAsyncCommands<String, String> commands, LockKeys keys,
                                                       String holder, String waiter, Duration reservation) {
        return release(commands, new String[] {keys.lock(), keys.waiters(), keys.permits()}, keys, holder, waiter,
                millis(reservation));
    }

    private CompletableFuture<Boolean> release(RedisClusterAsyncCommands<String, String> commands, String[] scriptKeys,
                                               LockKeys keys, String holder, String waiter, String reservationMillis) {
        CompletableFuture<Long> reply = release.run(commands, ScriptOutputType.INTEGER, scriptKeys,
                holder, waiter == null ? "" : waiter, keys.channel(), reservationMillis);
        return reply.thenApply(released -> released == 1L);
    }

    /**
     * Runs {@code release_holding.lua}: if {@code holder} owns {@code keys.lock()}, sets its life to
     * {@code keepFor} (rounded up to whole ms) instead of deleting it, for
     * {@link dev.leasehold.LockOptions#holdAtLeast}. Also used for the fair lock and the write lock,
     * whose leases are the same key.
     *
     * @return true if the key was the holder's
     */
    public CompletableFuture<Boolean> releaseHolding(RedisClusterAsyncCommands<String, String> commands, LockKeys keys,
                                                     String holder, Duration keepFor) {
        CompletableFuture<Long> reply = releaseHolding.run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock()},
                holder, millisUp(keepFor));
        return reply.thenApply(kept -> kept == 1L);
    }

    /** Whole milliseconds, rounded up (a hold-at-least is a lower bound), at least 1. */
    public static String millisUp(Duration duration) {
        long nanos = duration.toNanos();
        return Long.toString(Math.max(1, nanos / 1_000_000 + (nanos % 1_000_000 > 0 ? 1 : 0)));
    }

    /**
     * Runs {@code renew.lua}: extends the key to {@code ttl} if {@code holder} still owns it.
     *
     * @return true if extended
     */
    public CompletableFuture<Boolean> renew(RedisClusterAsyncCommands<String, String> commands, LockKeys keys, String holder,
                                            Duration ttl) {
        CompletableFuture<Long> reply = renew.run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock()},
                holder, millis(ttl));
        return reply.thenApply(extended -> extended == 1L);
    }

    private static String millis(Duration duration) {
        return Long.toString(duration.toMillis());
    }
}
