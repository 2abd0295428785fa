package dev.leasehold;

/**
 * What a lease of a name excludes: a lock kind as a value, not a class. Every backend serves every
 * kind it offers through one {@link dev.leasehold.spi.Backend#protocol(LockKind, LockOptions)}, and
 * the client in core builds every lock of {@link LockClient} from it.
 *
 * <p>Which kinds of one name exclude each other is one rule on every backend: the <em>lock
 * family</em> ({@link #MUTEX}, {@link #FAIR}, {@link #READ}, {@link #WRITE}) shares one holder slot,
 * where readers share it with readers only and every other member holds it alone; the <em>semaphore
 * family</em> ({@link Permits}) counts its own holders. The two families of one name never exclude
 * each other, and tokens of one name increase across all kinds.
 */
public sealed interface LockKind permits LockKind.Mutex, LockKind.Fair, LockKind.Read, LockKind.Write,
        LockKind.Permits {

    /** {@link LockClient#lock(String, LockOptions)}: exclusive, no order among waiters. */
    LockKind MUTEX = new Mutex();

    /** {@link LockClient#fairLock(String, LockOptions)}: exclusive, granted in arrival order across clients. */
    LockKind FAIR = new Fair();

    /** The read lock of {@link LockClient#readWriteLock(String, LockOptions)}: shared with other readers. */
    LockKind READ = new Read();

    /** The write lock of {@link LockClient#readWriteLock(String, LockOptions)}: excludes readers and writers. */
    LockKind WRITE = new Write();

    /**
     * One permit of {@link LockClient#semaphore(String, int, LockOptions)} with {@code permits} permits.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1 or above
     *                                  {@link DistributedSemaphore#MAX_PERMITS}
     */
    static LockKind permits(int permits) {
        return new Permits(permits);
    }

    /**
     * The kind's name in meters, logs and inspect output: {@code lock}, {@code fair_lock}, {@code read},
     * {@code write}, {@code semaphore}. Low cardinality: a semaphore's number of permits is not part of it.
     */
    String tag();

    /** Whether a lease of this kind is the only holder of its family (not a reader, not a permit). */
    default boolean exclusive() {
        return !(this instanceof Read) && !(this instanceof Permits);
    }

    /** The mutex: exclusive, waiters in no particular order. */
    record Mutex() implements LockKind {
        @Override
        public String tag() {
            return "lock";
        }
    }

    /** The fair lock: exclusive, waiters served in arrival order across clients. */
    record Fair() implements LockKind {
        @Override
        public String tag() {
            return "fair_lock";
        }
    }

    /** The read half of a read-write lock: shared with readers, excluded by writers and exclusive kinds. */
    record Read() implements LockKind {
        @Override
        public String tag() {
            return "read";
        }
    }

    /** The write half of a read-write lock: exclusive within the lock family. */
    record Write() implements LockKind {
        @Override
        public String tag() {
            return "write";
        }
    }

    /**
     * A permit of a semaphore of {@code permits} permits: at most {@code permits} leases of the name
     * at once. Every client must agree on the number; a mismatch is a {@link PermitsMismatchException}.
     *
     * @param permits the semaphore's number of permits, 1 to {@link DistributedSemaphore#MAX_PERMITS}
     */
    record Permits(int permits) implements LockKind {

        public Permits {
            dev.leasehold.spi.Args.permits(permits);
        }

        @Override
        public String tag() {
            return "semaphore";
        }
    }
}
