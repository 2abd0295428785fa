package dev.leasehold.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A snapshot of one lock on a Redis server, taken atomically by one script.
 *
 * @param name          the lock name
 * @param holder        the holder id, redacted to its first characters (never the full secret)
 * @param remaining     the holder's remaining ttl; empty when the lock is free or has no ttl
 * @param lastToken     the last fencing token issued, if the fence key still exists
 * @param waiters       waiters registered (across all clients) and not expired
 * @param foreign       when one of the lock's keys holds a value of another type than Leasehold
 *                      writes (another program uses the name): that key and its type; such a key
 *                      reads as absent in the other fields
 */
public record LockInfo(String name, Optional<String> holder, Optional<Duration> remaining,
                       OptionalLong lastToken, long waiters, Optional<String> foreign) {

    /** Whether someone holds the lock right now. */
    public boolean isHeld() {
        return holder.isPresent();
    }
}
