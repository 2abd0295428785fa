package dev.leasehold.redis;

import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.redis.internal.RedisScript;

/**
 * The scripts of the Redis lock kinds, each kept in its own {@code .lua} resource beside this
 * class: the mutex's in {@link MutexScripts}, the others here. The single-server watchdog renews
 * in batches: {@code renew_batch.lua} for leases held as a key, {@code renew_members.lua} for
 * leases held as a sorted-set member.
 */
final class RedisScripts {

    final MutexScripts mutex = new MutexScripts();
    final RedisScript renewBatch = RedisScript.load("renew_batch.lua");
    final RedisScript renewMembers = RedisScript.load("renew_members.lua");
    final RedisScript inspect = RedisScript.load("inspect.lua");
    final RedisScript list = RedisScript.load("list.lua");
    final RedisScript breakLock = RedisScript.load("break.lua");
    final RedisScript readAcquire = RedisScript.load("read_acquire.lua");
    final RedisScript readRelease = RedisScript.load("read_release.lua");
    final RedisScript writeAcquire = RedisScript.load("write_acquire.lua");
    final RedisScript writeRelease = RedisScript.load("write_release.lua");
    final RedisScript semaphoreAcquire = RedisScript.load("semaphore_acquire.lua");
    final RedisScript semaphoreRelease = RedisScript.load("semaphore_release.lua");
    final RedisScript semaphoreAvailable = RedisScript.load("semaphore_available.lua");
    final RedisScript fairAcquire = RedisScript.load("fair_acquire.lua");
    final RedisScript fairRelease = RedisScript.load("fair_release.lua");
}
