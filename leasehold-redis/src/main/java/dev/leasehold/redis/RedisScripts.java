package dev.leasehold.redis;

/** The mutex's scripts, each kept in its own {@code .lua} resource beside this class. */
final class RedisScripts {

    final RedisScript acquire = RedisScript.load("acquire.lua");
    final RedisScript release = RedisScript.load("release.lua");
    final RedisScript renew = RedisScript.load("renew.lua");
    final RedisScript inspect = RedisScript.load("inspect.lua");
}
