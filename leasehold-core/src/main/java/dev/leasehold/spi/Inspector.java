package dev.leasehold.spi;

import dev.leasehold.BrokenLock;
import dev.leasehold.LockInfo;

import java.util.List;

/**
 * What a backend can tell about locks it did not take: one snapshot, the held locks, and the
 * operator's break. {@link dev.leasehold.LockClient}'s {@code inspect}, {@code list} and
 * {@code breakLock} delegate here; a backend that cannot do one of them says why in an
 * {@link UnsupportedOperationException}.
 */
public interface Inspector {

    /**
     * One snapshot of {@code name}, whatever kind holds it.
     *
     * @param name the lock name, already checked by {@link Backend#lockName(String)}
     */
    LockInfo inspect(String name);

    /**
     * The names matching the glob {@code pattern} that are held right now, by name.
     *
     * @throws UnsupportedOperationException if the backend cannot enumerate its locks
     */
    List<LockInfo> list(String pattern);

    /**
     * Deletes whatever holds {@code name} now and advances its fence past every token issued, so a
     * write fenced with the broken holder's token is refused; empty if nobody held it.
     *
     * @throws UnsupportedOperationException if the backend cannot break a lock
     */
    java.util.Optional<BrokenLock> breakLock(String name, String reason);
}
