package dev.leasehold.spring;

import dev.leasehold.LeaseSource;
import dev.leasehold.LockClient;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;

/**
 * The lock kind of a {@link Locked} method: its {@link Locked#kind()} and {@link Locked#permits()}
 * read as one {@link LockKind} value, and the lock of that kind on a client.
 */
final class LockedKind {

    private LockedKind() {
    }

    /**
     * The kind the annotation names.
     *
     * @param where the attribute, for messages
     * @throws LeaseholdConfigurationException if {@code kind} is the interface itself, or
     *         {@code permits} is missing or out of range for {@link LockKind.Permits}, or set for another kind
     */
    static LockKind of(Locked locked, String where) {
        Class<? extends LockKind> kind = locked.kind();
        int permits = locked.permits();
        if (kind == LockKind.Permits.class) {
            if (permits == 0) {
                throw new LeaseholdConfigurationException(where, "kind = LockKind.Permits.class is a semaphore and "
                        + "needs its number of permits: add permits = 3 (every caller must agree on it)", null);
            }
            try {
                return LockKind.permits(permits);
            } catch (IllegalArgumentException refused) {
                throw new LeaseholdConfigurationException(where, refused.getMessage(), refused);
            }
        }
        if (permits != 0) {
            throw new LeaseholdConfigurationException(where, "permits = " + permits + " is for a semaphore only; "
                    + "add kind = LockKind.Permits.class, or drop permits", null);
        }
        if (kind == LockKind.Mutex.class) {
            return LockKind.MUTEX;
        }
        if (kind == LockKind.Fair.class) {
            return LockKind.FAIR;
        }
        if (kind == LockKind.Read.class) {
            return LockKind.READ;
        }
        if (kind == LockKind.Write.class) {
            return LockKind.WRITE;
        }
        throw new LeaseholdConfigurationException(where, "kind = " + kind.getSimpleName() + ".class names no lock "
                + "kind; write LockKind.Mutex.class (the default), Fair.class, Read.class, Write.class or Permits.class "
                + "with permits", null);
    }

    /**
     * The lock of {@code kind} named {@code name} on {@code client}: a semaphore's permit for
     * {@link LockKind.Permits}.
     *
     * @throws IllegalArgumentException      if the client refuses the name
     * @throws UnsupportedOperationException if the client's backend offers no lock of this kind
     */
    static LeaseSource on(LockClient client, LockKind kind, String name, LockOptions options) {
        if (kind instanceof LockKind.Permits permits) {
            return client.semaphore(name, permits.permits(), options);
        }
        if (kind instanceof LockKind.Fair) {
            return client.fairLock(name, options);
        }
        if (kind instanceof LockKind.Read) {
            return client.readWriteLock(name, options).readLock();
        }
        if (kind instanceof LockKind.Write) {
            return client.readWriteLock(name, options).writeLock();
        }
        return client.lock(name, options);
    }
}
