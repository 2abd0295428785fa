package dev.leasehold.redis;

import dev.leasehold.LockClient;
import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisDeployment;
import dev.leasehold.spi.Args;

import java.time.Duration;

/**
 * A {@link LockClient} on one Redis deployment: a single server, the master a set of Sentinels
 * names (followed across failovers), or a Cluster. Create it with {@link RedisLocks#connect(String)},
 * {@link RedisLocks#connectCluster(String...)} or {@link RedisLocks#builder()}. Thread-safe; share
 * one per application.
 *
 * <p>It holds one command connection (Lettuce multiplexes every caller over it, so concurrent
 * acquires and renewals are pipelined; on a Cluster, one per master), one pub/sub connection
 * opened on the first wait, and one renewal thread. {@link #close()} ends all of them, and the
 * Lettuce client too when this client created it.
 *
 * <p><b>The kinds on the server.</b> The mutex, the fair lock and the write lock hold the lock key
 * itself (the holder id, {@code PX} ttl), so they exclude each other and a plain {@code SET NX} lock
 * of the same name. A fair lock's acquisitions take their place in the name's queue with their first
 * attempt, in the order the server saw them arrive, and a release hands the lock straight to the
 * first live waiter; a waiter whose process died keeps its place until its registration expires
 * ({@link LeaseEngine.Settings#waiterRegistration()}). Readers are members of a sorted set beside the
 * key (holder id to lease expiry), admitted while no writer holds the key or waits, so a stream of
 * readers never starves a writer; the mutex and the fair lock wait for live readers too. A
 * semaphore's permits are members of another sorted set, which also stores the number of permits
 * while a lease lives; every acquire checks the number atomically with its grant
 * ({@link dev.leasehold.PermitsMismatchException}). Every kind takes its tokens from the name's one
 * fence, and {@link dev.leasehold.LockOptions#withReplicaAck} wraps any kind.
 *
 * <p><b>What it guarantees.</b> Mutual exclusion between holders whose leases are valid, as long
 * as the server does not lose the key: a restart without persistence or a failover to a replica
 * that had not received the key can grant the lock twice (Redis replication is asynchronous; a
 * Sentinel or Cluster failover promotes a replica that may lack the last writes). Fencing tokens
 * stay strictly increasing across holders as long as the server's clock does not step back by
 * more than the fence retention (see {@link RedisLocks.Builder#fenceRetention(Duration)}) and the
 * server does not lose the fence key's last write; across a failover, see docs/redis.md, "What a
 * failover can lose", for when a promoted replica's tokens exceed the old master's.
 */
public final class RedisLockClient extends EngineLockClient {

    /** Keys asked of each {@code SCAN} step (its {@code COUNT}) of {@link #list}: one bounded batch per round trip. */
    static final int SCAN_BATCH = 1_000;
    /** How long the audit record of a break ({@link LockKeys#broken()}) lives. */
    public static final Duration BREAK_AUDIT_RETENTION = Duration.ofHours(24);
    /** Longest reason accepted by {@link #breakLock(String, String)}, in characters. */
    public static final int MAX_REASON_LENGTH = Args.MAX_REASON_LENGTH;

    private final RedisBackend redis;

    RedisLockClient(RedisDeployment deployment, LeaseEngine.Settings settings, Duration fenceRetention,
                    String keyPrefix) {
        this(new RedisBackend(deployment, settings, fenceRetention, keyPrefix), settings);
    }

    private RedisLockClient(RedisBackend redis, LeaseEngine.Settings settings) {
        super(redis, settings);
        this.redis = redis;
    }

    /** What the mutex's renewal batches cost so far: flushes, script groups (slots) touched, script calls. */
    RenewalBatch.Stats mutexRenewalStats() {
        return redis.mutexRenewalStats();
    }

    /** Channels this client is subscribed to for waiters right now. */
    public int activeSubscriptions() {
        return redis.activeSubscriptions();
    }
}
