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

    private final boolean sharded;
    private final boolean clientChannels;
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
    final RedisScript leaderPublish;
    final RedisScript leaderClear;
    final RedisScript leaderRead;

    /** The scripts of a single server (plain {@code PUBLISH}, a woken waiter addressed on its client's channel). */
    RedisScripts() {
        this(false, true);
    }

    /**
     * @param sharded        publish with {@code SPUBLISH} (a Cluster of Redis 7 or later), else with {@code PUBLISH}
     * @param clientChannels wake one waiter on its client's channel ({@code lib_wake.lua}), else on the lock's
     */
    RedisScripts(boolean sharded, boolean clientChannels) {
        this.sharded = sharded;
        this.clientChannels = clientChannels;
        this.mutex = new MutexScripts(sharded, clientChannels);
        this.renewBatch = load("renew_batch.lua");
        this.renewMembers = load("renew_members.lua");
        this.inspect = load("inspect.lua");
        this.list = load("list.lua");
        this.breakLock = load("break.lua");
        this.readAcquire = load("read_acquire.lua");
        this.readRelease = load("read_release.lua");
        this.writeAcquire = load("write_acquire.lua");
        this.writeRelease = load("write_release.lua");
        this.semaphoreAcquire = load("semaphore_acquire.lua");
        this.semaphoreRelease = load("semaphore_release.lua");
        this.semaphoreAvailable = load("semaphore_available.lua");
        this.fairAcquire = load("fair_acquire.lua");
        this.fairRelease = load("fair_release.lua");
        this.releaseHoldingMember = load("release_holding_member.lua");
        this.leaderPublish = load("leader_publish.lua");
        this.leaderClear = load("leader_clear.lua");
        this.leaderRead = load("leader_read.lua");
    }

    private RedisScript load(String resource) {
        return RedisScript.load(resource).forDeployment(sharded, clientChannels);
    }
}
