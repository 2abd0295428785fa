package dev.leasehold.spi;

import dev.leasehold.LockKind;

/**
 * One acquisition in a lock name's server-side queue, as the {@link QueueRule} sees it: what it
 * asks for, nothing of how the backend stores it (a ZooKeeper node, an etcd key). Queue-based
 * backends list a name's entries in the order the server created them and let the rule decide.
 *
 * @param mode    what the acquisition asks for
 * @param permits for {@link Mode#PERMIT}, the semaphore's number of permits (at least 1); else 0
 */
public record QueueEntry(Mode mode, int permits) {

    /** What an acquisition asks for. */
    public enum Mode {
        /** Alone among the lock family: a mutex, a fair lock or a write lock. */
        EXCLUSIVE,
        /** Together with other readers, never with an exclusive holder. */
        READ,
        /** One of a semaphore's permits, together with at most {@code permits - 1} others. */
        PERMIT
    }

    private static final QueueEntry EXCLUSIVE = new QueueEntry(Mode.EXCLUSIVE, 0);
    private static final QueueEntry READ = new QueueEntry(Mode.READ, 0);

    public QueueEntry {
        Args.notNull("mode", mode);
        if ((mode == Mode.PERMIT) != (permits > 0)) {
            throw new IllegalArgumentException("permits must be at least 1 for a permit and 0 otherwise, was "
                    + permits + " for " + mode);
        }
    }

    public static QueueEntry exclusive() {
        return EXCLUSIVE;
    }

    public static QueueEntry read() {
        return READ;
    }

    public static QueueEntry permit(int permits) {
        return new QueueEntry(Mode.PERMIT, permits);
    }

    /**
     * The entry an acquisition of {@code kind} adds to its name's queue: exclusive for the mutex, the
     * fair lock and the write lock (which exclude each other alike), read, or a permit under the
     * semaphore's number of permits.
     */
    public static QueueEntry of(LockKind kind) {
        if (kind instanceof LockKind.Permits permits) {
            return permit(permits.permits());
        }
        return kind instanceof LockKind.Read ? READ : EXCLUSIVE;
    }

    /**
     * The kind an inspector reports for a holder of this entry. An exclusive entry does not tell the
     * mutex, the fair lock and the write lock apart (a queue backend stores them alike, since they
     * exclude each other alike), so it is reported as {@link LockKind#MUTEX}.
     */
    public LockKind reportedKind() {
        return switch (mode) {
            case EXCLUSIVE -> LockKind.MUTEX;
            case READ -> LockKind.READ;
            case PERMIT -> LockKind.permits(permits);
        };
    }

    /**
     * Whether this entry belongs to the lock family (exclusive and read leases) rather than to the
     * semaphore family; the two families of one name never exclude each other.
     */
    boolean inLockFamily() {
        return mode != Mode.PERMIT;
    }
}
