package dev.leasehold.redis;

/**
 * The mutex's scripts, each kept in its own {@code .lua} resource beside this class. ({@code renew.lua},
 * one lease at a time, is a Redlock node's renewal; the single-server watchdog renews in batches.)
 */
final class RedisScripts {

    final RedisScript acquire = RedisScript.load("acquire.lua");
    final RedisScript release = RedisScript.load("release.lua");
    final RedisScript renewBatch = RedisScript.load("renew_batch.lua");
    final RedisScript inspect = RedisScript.load("inspect.lua");
}
