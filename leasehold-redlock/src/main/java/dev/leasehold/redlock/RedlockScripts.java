package dev.leasehold.redlock;

import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.redis.internal.RedisScript;

/**
 * One node's part of each Redlock step, run by {@code EVALSHA} with an {@code EVAL} fallback (a
 * restarted node has forgotten every script). A node takes, extends and frees its key exactly as a
 * single server does, so acquire, renew and release are the single-node scripts of
 * leasehold-redis, and a single-node client and a Redlock client exclude each other on a shared
 * server. Only the token write-back, {@code fence.lua}, is Redlock's own. Loaded once per client
 * and shared by all its nodes.
 */
final class RedlockScripts {

    final MutexScripts mutex = new MutexScripts();
    final RedisScript fence = RedisScript.load("/dev/leasehold/redlock/fence.lua");
}
