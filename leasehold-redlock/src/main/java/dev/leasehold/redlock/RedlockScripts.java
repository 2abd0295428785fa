package dev.leasehold.redlock;

import dev.leasehold.redis.RedisScript;

/**
 * One node's part of each Redlock step, each kept in its own {@code .lua} resource beside this
 * class and run by {@code EVALSHA} with an {@code EVAL} fallback (a restarted node has forgotten
 * every script). Loaded once per client and shared by all its nodes.
 */
final class RedlockScripts {

    final RedisScript acquire = load("acquire.lua");
    final RedisScript fence = load("fence.lua");
    final RedisScript renew = load("renew.lua");
    final RedisScript release = load("release.lua");

    private static RedisScript load(String file) {
        return RedisScript.load("/dev/leasehold/redlock/" + file);
    }
}
