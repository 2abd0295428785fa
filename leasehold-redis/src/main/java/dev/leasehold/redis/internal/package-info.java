/**
 * Leasehold's Redis plumbing, shared by its Redis-based modules (leasehold-redlock, the command
 * line): Lettuce setup, the key layout of a lock name ({@code LockKeys}), scripts and their
 * arguments, release notifications, error translation, the server version check.
 *
 * <p><b>Not an API.</b> These classes are public only so sibling modules can use them; they change
 * without notice. Applications use {@link dev.leasehold.redis.RedisLocks} and the types it returns.
 */
package dev.leasehold.redis.internal;
