package dev.leasehold.redis;

import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.redis.internal.RedisScript;

/**
 * The scripts of the Redis lock kinds, each kept in its own {@code .lua} resource beside this
 * class: the mutex's in {@link MutexScripts}, the others here. The single-server watchdog renews
 * in batches: {@code renew_batch.lua} for leases held as a key, {@code renew_members.lua} for
 * leases held as a sorted-set member. A release within hold-at-least keeps the lease instead:
 * {@code release_holding.lua} (in {@link MutexScripts}) for a key, {@code release_holding_member.lua}
 * for a member.
 */
final class RedisScripts {

    final MutexScripts mutex;
    final RedisScript renewBatch;
    final RedisScript renewMembers;
    final RedisScript inspect;
    final RedisScript list;
    final RedisScript breakLock;
    final RedisScript readAcquire;
    final RedisScript readRelease;
    final RedisScript writeAcquire;
    final RedisScript writeRelease;
    final RedisScript semaphoreAcquire;
    final RedisScript semaphoreRelease;
    final RedisScript semaphoreAvailable;
    final RedisScript fairAcquire;
    final RedisScript fairRelease;
    final RedisScript releaseHoldingMember;

    /** The scripts of a single server (plain {@code PUBLISH}). */
    RedisScripts() {
        this(false);
    }

    /** @param sharded publish with {@code SPUBLISH} (a Cluster of Redis 7 or later), else with {@code PUBLISH} */
    RedisScripts(boolean sharded) {
        this.mutex = new MutexScripts(sharded);
        this.renewBatch = load("renew_batch.lua", sharded);
        this.renewMembers = load("renew_members.lua", sharded);
        this.inspect = load("inspect.lua", sharded);
        this.list = load("list.lua", sharded);
        this.breakLock = load("break.lua", sharded);
        this.readAcquire = load("read_acquire.lua", sharded);
        this.readRelease = load("read_release.lua", sharded);
        this.writeAcquire = load("write_acquire.lua", sharded);
        this.writeRelease = load("write_release.lua", sharded);
        this.semaphoreAcquire = load("semaphore_acquire.lua", sharded);
        this.semaphoreRelease = load("semaphore_release.lua", sharded);
        this.semaphoreAvailable = load("semaphore_available.lua", sharded);
        this.fairAcquire = load("fair_acquire.lua", sharded);
        this.fairRelease = load("fair_release.lua", sharded);
        this.releaseHoldingMember = load("release_holding_member.lua", sharded);
    }

    private static RedisScript load(String resource, boolean sharded) {
        RedisScript script = RedisScript.load(resource);
        return sharded ? script.withShardedPublish() : script;
    }
}
