package dev.leasehold.redis;

/**
 * The scripts of the Redis lock kinds, each kept in its own {@code .lua} resource beside this
 * class. ({@code renew.lua}, one lease at a time, is a Redlock node's renewal; the single-server
 * watchdog renews in batches: {@code renew_batch.lua} for leases held as a key,
 * {@code renew_members.lua} for leases held as a sorted-set member.)
 */
final class RedisScripts {

    final RedisScript acquire = RedisScript.load("acquire.lua");
    final RedisScript release = RedisScript.load("release.lua");
    final RedisScript renewBatch = RedisScript.load("renew_batch.lua");
    final RedisScript renewMembers = RedisScript.load("renew_members.lua");
    final RedisScript inspect = RedisScript.load("inspect.lua");
    final RedisScript fairAcquire = RedisScript.load("fair_acquire.lua");
    final RedisScript fairRelease = RedisScript.load("fair_release.lua");
}
