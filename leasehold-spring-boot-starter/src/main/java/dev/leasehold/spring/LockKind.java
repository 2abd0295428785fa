package dev.leasehold.spring;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;

/** Which lock of the {@link LockClient} a {@link Locked} method holds while it runs. */
public enum LockKind {

    /** {@link LockClient#lock(String, LockOptions)}: exclusive. */
    MUTEX,
    /** {@link LockClient#fairLock(String, LockOptions)}: exclusive, granted in arrival order across clients. */
    FAIR,
    /** The read lock of {@link LockClient#readWriteLock(String, LockOptions)}: shared with other readers. */
    READ,
    /** The write lock of {@link LockClient#readWriteLock(String, LockOptions)}: excludes readers and writers. */
    WRITE;

    /**
     * The lock of this kind named {@code name} on {@code client}.
     *
     * @throws IllegalArgumentException      if the client refuses the name
     * @throws UnsupportedOperationException if the client's backend offers no lock of this kind
     */
    DistributedLock on(LockClient client, String name, LockOptions options) {
        return switch (this) {
            case MUTEX -> client.lock(name, options);
            case FAIR -> client.fairLock(name, options);
            case READ -> client.readWriteLock(name, options).readLock();
            case WRITE -> client.readWriteLock(name, options).writeLock();
        };
    }
}
