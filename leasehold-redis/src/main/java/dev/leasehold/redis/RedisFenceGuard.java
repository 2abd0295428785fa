package dev.leasehold.redis;

import dev.leasehold.FenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockInterruptedException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.StaleTokenException;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.RedisScript;
import dev.leasehold.spi.Args;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The fencing guard for data kept in Redis: each write method runs one Lua script that checks the
 * lease's token against the data key's guard fence and, only if it is not lower than the highest
 * token admitted there, performs the write and records the token, atomically. A late holder's
 * write is refused with a {@link StaleTokenException} and changes nothing.
 *
 * <p><b>Layout.</b> The guard fence of data key {@code k} is {@code {k}:guard} when {@code k} has no
 * hash tag, and {@code k:guard} when it has one, so it always shares {@code k}'s Cluster slot (one
 * script touches one slot). It holds the highest admitted token and expires {@link #fenceRetention()}
 * after the last admitted write: a writer paused for longer than that since the last admitted
 * write of the key is no longer refused, so choose a retention well beyond any lease's maximum hold.
 * A {@link #del} keeps the fence, so a late writer cannot bring a deleted key back.
 *
 * <p><b>Tokens</b> are those of Leasehold leases: 0 to {@code Long.MAX_VALUE}, compared exactly
 * (as decimal strings, never as Lua's doubles). Equal tokens are admitted: a holder may write
 * several times.
 *
 * <p><b>Pass the lease.</b> Each write has an overload that takes the {@link Lease} instead of its
 * token and refuses, with a {@link LeaseLostException}, a lease its client already knows is lost or
 * released, before the script is sent (after {@code leasehold break}, say, the old holder's token is
 * still the highest until a new holder writes). A lease lost on the server but not yet known to its
 * client, or lost while the script is on its way, is only refused by the token order: see
 * {@link FenceGuard} for that window.
 *
 * <p>Unlike the core {@link dev.leasehold.FenceGuard}, whose write is arbitrary Java code, the
 * writes here are the Redis commands the script performs, since only they can share its atomic
 * step. Thread-safe: one instance may serve every thread, over one connection.
 */
public final class RedisFenceGuard {

    /** The fence retention of {@link #using(StatefulRedisConnection)}. */
    public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofDays(7);
    private static final RedisScript GUARD_WRITE = RedisScript.load("guard_write.lua");
    private static final String GUARD = ":guard";

    private final StatefulRedisConnection<String, String> connection;
    private final Duration fenceRetention;

    private RedisFenceGuard(StatefulRedisConnection<String, String> connection, Duration fenceRetention) {
        this.connection = connection;
        this.fenceRetention = fenceRetention;
    }

    /**
     * A guard writing over {@code connection} (which the caller keeps and closes), with fences kept
     * {@link #DEFAULT_FENCE_RETENTION} after the last admitted write. Each call waits at most the
     * connection's timeout.
     *
     * @throws IllegalArgumentException if {@code connection} is null
     */
    public static RedisFenceGuard using(StatefulRedisConnection<String, String> connection) {
        return new RedisFenceGuard(Args.notNull("connection", connection), DEFAULT_FENCE_RETENTION);
    }

    /**
     * This guard with another fence retention.
     *
     * @throws IllegalArgumentException if {@code retention} is null, under 1 s or over 365 days
     */
    public RedisFenceGuard withFenceRetention(Duration retention) {
        return new RedisFenceGuard(connection, Args.within("fenceRetention", retention,
                Duration.ofSeconds(1), Duration.ofDays(365)));
    }

    /** How long a fence is kept after the last admitted write of its key. */
    public Duration fenceRetention() {
        return fenceRetention;
    }

    /**
     * {@code SET key value} if {@code token} is admitted.
     *
     * @throws StaleTokenException if a higher token was admitted for {@code key}; nothing was written
     * @throws LockUnavailableException if Redis cannot be reached or answers with an error
     *     (e.g. the fence key was overwritten with something else)
     * @throws IllegalArgumentException if {@code key} is null, blank, too long, has a '}' without a
     *     hash tag or is another key's guard fence ({@code {k}:guard}), {@code value} is null, or
     *     {@code token} is negative
     */
    public void set(String key, String value, long token) {
        run(key, token, "set", "SET", Args.notNull("value", value));
    }

    /**
     * {@code HSET key field value} if {@code token} is admitted.
     *
     * @return whether the field is new
     * @throws StaleTokenException if a higher token was admitted for {@code key}; nothing was written
     * @throws LockUnavailableException as {@link #set}; also when {@code key} holds another type than a hash
     * @throws IllegalArgumentException as {@link #set}, or if {@code field} is null
     */
    public boolean hset(String key, String field, String value, long token) {
        return !run(key, token, "hset", "HSET", Args.notNull("field", field), Args.notNull("value", value)).equals("0");
    }

    /**
     * {@code INCRBY key delta} if {@code token} is admitted.
     *
     * @return the new value
     * @throws StaleTokenException if a higher token was admitted for {@code key}; nothing was written
     * @throws LockUnavailableException as {@link #set}; also when {@code key} does not hold an
     *     integer or the result would overflow
     * @throws IllegalArgumentException as {@link #set}
     */
    public long incrBy(String key, long delta, long token) {
        return Long.parseLong(run(key, token, "incrby", "INCRBY", Long.toString(delta)));
    }

    /**
     * {@code DEL key} if {@code token} is admitted; the fence stays, so a late holder cannot recreate the key.
     *
     * @return whether the key existed
     * @throws StaleTokenException if a higher token was admitted for {@code key}; nothing was deleted
     * @throws LockUnavailableException as {@link #set}
     * @throws IllegalArgumentException as {@link #set}
     */
    public boolean del(String key, long token) {
        return !run(key, token, "del", "DEL").equals("0");
    }

    /**
     * {@link #set(String, String, long)} with {@code lease}'s token, if the lease is still valid.
     *
     * @throws LeaseLostException if the lease is lost or released; nothing was sent
     * @throws StaleTokenException as {@link #set(String, String, long)}
     * @throws LockUnavailableException as {@link #set(String, String, long)}
     * @throws IllegalArgumentException if {@code lease} is null, or as {@link #set(String, String, long)}
     */
    public void set(String key, String value, Lease lease) {
        set(key, value, FenceGuard.tokenOf(lease));
    }

    /**
     * {@link #hset(String, String, String, long)} with {@code lease}'s token, if the lease is still valid.
     *
     * @return whether the field is new
     * @throws LeaseLostException if the lease is lost or released; nothing was sent
     * @throws StaleTokenException as {@link #hset(String, String, String, long)}
     * @throws LockUnavailableException as {@link #hset(String, String, String, long)}
     * @throws IllegalArgumentException if {@code lease} is null, or as {@link #hset(String, String, String, long)}
     */
    public boolean hset(String key, String field, String value, Lease lease) {
        return hset(key, field, value, FenceGuard.tokenOf(lease));
    }

    /**
     * {@link #incrBy(String, long, long)} with {@code lease}'s token, if the lease is still valid.
     *
     * @return the new value
     * @throws LeaseLostException if the lease is lost or released; nothing was sent
     * @throws StaleTokenException as {@link #incrBy(String, long, long)}
     * @throws LockUnavailableException as {@link #incrBy(String, long, long)}
     * @throws IllegalArgumentException if {@code lease} is null, or as {@link #incrBy(String, long, long)}
     */
    public long incrBy(String key, long delta, Lease lease) {
        return incrBy(key, delta, FenceGuard.tokenOf(lease));
    }

    /**
     * {@link #del(String, long)} with {@code lease}'s token, if the lease is still valid.
     *
     * @return whether the key existed
     * @throws LeaseLostException if the lease is lost or released; nothing was sent
     * @throws StaleTokenException as {@link #del(String, long)}
     * @throws LockUnavailableException as {@link #del(String, long)}
     * @throws IllegalArgumentException if {@code lease} is null, or as {@link #del(String, long)}
     */
    public boolean del(String key, Lease lease) {
        return del(key, FenceGuard.tokenOf(lease));
    }

    /**
     * The highest token admitted for {@code key} and still retained, or {@code Long.MIN_VALUE} if none.
     *
     * @throws LockUnavailableException if Redis cannot be reached
     */
    public long highestAdmitted(String key) {
        String fence = await(connection.async().get(fenceKey(Args.lockName(key))).toCompletableFuture(), key,
                "GET of the guard fence");
        return fence == null ? Long.MIN_VALUE : Long.parseLong(fence);
    }

    /**
     * The guard fence key of {@code key}, in its Cluster slot.
     *
     * @throws IllegalArgumentException if {@code key} has a '}' but no hash tag: no other key could share its
     *     slot; or if it is itself a guard fence (a hash tag, and ending with {@code :guard})
     */
    static String fenceKey(String key) {
        if (LockKeys.hasHashTag(key)) {
            if (key.endsWith(GUARD)) {
                throw new IllegalArgumentException("key '" + key + "' is the guard fence of another key (it has a "
                        + "{hash tag} and ends with '" + GUARD + "'): a guarded write to it could lower that fence; "
                        + "name the data key otherwise");
            }
            return key + GUARD;
        }
        if (key.indexOf('}') >= 0) {
            throw new IllegalArgumentException("key '" + key + "' contains '}' without a non-empty {hash tag}, so its "
                    + "guard fence could not share its Redis Cluster slot; remove the '}' or put the part to hash in "
                    + "braces, e.g. '{order:123}:total'");
        }
        return "{" + key + "}" + GUARD;
    }

    private String run(String key, long token, String op, String command, String... args) {
        Args.lockName(key);
        Args.token(token);
        String[] argv = new String[3 + args.length];
        argv[0] = Long.toString(token);
        argv[1] = Long.toString(fenceRetention.toMillis());
        argv[2] = op;
        System.arraycopy(args, 0, argv, 3, args.length);
        List<Object> reply = await(GUARD_WRITE.<List<Object>>run(connection.async(), ScriptOutputType.MULTI,
                new String[] {key, fenceKey(key)}, argv), key, "guarded " + command);
        if ((Long) reply.get(0) == 0L) {
            throw new StaleTokenException(key, token, Long.parseLong((String) reply.get(1)));
        }
        return (String) reply.get(1);
    }

    private <T> T await(CompletableFuture<T> reply, String key, String operation) {
        Duration timeout = connection.getTimeout();
        try {
            return reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reply.cancel(true);
            throw new LockInterruptedException(key, e);
        } catch (ExecutionException | TimeoutException e) {
            throw RedisErrors.translate("the guard's connection", operation, e);
        }
    }
}
