package dev.leasehold.testkit.contract;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.EngineSemaphore;

/** The exclusive lock of each kind a contract runs for, through the public {@link LockClient} API. */
final class KindLocks {

    private KindLocks() {
    }

    /**
     * The kind whose {@link LockKind#tag()} is {@code tag}; a semaphore has one permit.
     *
     * @throws IllegalArgumentException for {@code read} (not exclusive) or a tag no kind has
     */
    static LockKind kind(String tag) {
        return switch (tag) {
            case "lock" -> LockKind.MUTEX;
            case "fair_lock" -> LockKind.FAIR;
            case "write" -> LockKind.WRITE;
            case "semaphore" -> LockKind.permits(1);
            case "read" -> throw new IllegalArgumentException("the contract cannot run for 'read': readers share"
                    + " the lock, and the contract needs a kind that excludes itself");
            default -> throw new IllegalArgumentException("no lock kind '" + tag
                    + "': use lock, fair_lock, write or semaphore");
        };
    }

    /** The lock {@code name} of {@code kind} on {@code client}; a one-permit semaphore seen as a lock. */
    static DistributedLock lock(LockClient client, LockKind kind, String name, LockOptions options) {
        if (kind instanceof LockKind.Fair) {
            return client.fairLock(name, options);
        }
        if (kind instanceof LockKind.Write) {
            return client.readWriteLock(name, options).writeLock();
        }
        if (kind instanceof LockKind.Permits permits && permits.permits() == 1) {
            return ((EngineSemaphore) client.semaphore(name, 1, options)).lock();
        }
        if (kind instanceof LockKind.Mutex) {
            return client.lock(name, options);
        }
        throw new IllegalArgumentException("the contract runs for exclusive kinds only, not " + kind);
    }
}
