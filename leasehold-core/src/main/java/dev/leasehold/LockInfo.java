package dev.leasehold;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A snapshot of one lock name on a backend, the same record from every backend's
 * {@link dev.leasehold.engine.EngineLockClient#inspect(String)} and
 * {@link dev.leasehold.engine.EngineLockClient#list(String)}. Holder ids are redacted
 * to their first characters: a snapshot never carries a full holder secret.
 *
 * @param name      the lock name, as the client was asked for it
 * @param kind      the kind of the current holders ({@link LockKind#READ} when readers hold it, a
 *                  {@link LockKind.Permits} when permits do); empty when nobody holds the name
 * @param holders   the current holders, redacted, oldest first; several for readers and permits
 * @param remaining the oldest holder's remaining ttl; empty when free, or when the backend keeps no
 *                  ttl per holder (a ZooKeeper holder lives as long as its session)
 * @param lastToken the last fencing token issued for the name, if the backend still knows it
 * @param waiters   acquisitions queued or registered behind the holders, across all clients
 * @param foreign   when a key under the lock's name holds something Leasehold did not write (another
 *                  program uses the name): what it is; such a key reads as absent in the other fields
 */
public record LockInfo(String name, Optional<LockKind> kind, List<String> holders, Optional<Duration> remaining,
                       OptionalLong lastToken, long waiters, Optional<String> foreign) {

    public LockInfo {
        holders = List.copyOf(holders);
    }

    /** Whether someone holds the lock right now. */
    public boolean isHeld() {
        return !holders.isEmpty();
    }

    /** The oldest current holder, redacted; empty when free. */
    public Optional<String> holder() {
        return holders.stream().findFirst();
    }

    /** A free name: no holder, no ttl, no waiters. */
    public static LockInfo free(String name, OptionalLong lastToken) {
        return new LockInfo(name, Optional.empty(), List.of(), Optional.empty(), lastToken, 0, Optional.empty());
    }
}
