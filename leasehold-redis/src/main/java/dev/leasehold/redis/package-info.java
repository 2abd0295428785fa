/**
 * The Redis backend: {@link dev.leasehold.redis.RedisLocks} connects a
 * {@link dev.leasehold.redis.RedisLockClient} to one server. The lock key is the lock name itself
 * (compatible with plain {@code SET NX PX} clients); the fence, waiter and channel names share its
 * Cluster slot. Server-side steps live in the {@code .lua} resources beside these classes.
 */
package dev.leasehold.redis;
