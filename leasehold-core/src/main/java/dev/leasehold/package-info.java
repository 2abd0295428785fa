/**
 * Leasehold's API: distributed locks whose every lease carries a fencing token.
 *
 * <p>Start from {@link dev.leasehold.LockClient} (made by a backend module, e.g.
 * {@code dev.leasehold.redis.RedisLocks}), take a {@link dev.leasehold.DistributedLock} by name,
 * and acquire a {@link dev.leasehold.Lease}. Pass {@link dev.leasehold.Lease#token()} with every
 * write to the protected resource and check it there with a {@link dev.leasehold.FenceGuard}:
 * a lease can expire while its holder is paused, and only the resource can refuse the late write.
 */
package dev.leasehold;
