package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.ReentrantLeaseLock;
import dev.leasehold.spi.LockProtocol;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link DistributedReadWriteLock} of every engine-backed backend: a read lock and a write lock
 * on one name, each an engine lock over its own {@link LockProtocol}, which alone decide who holds
 * what on the backend. This class adds the one rule the backend cannot see, since it knows leases,
 * not threads: <b>a thread never waits for itself</b>.
 *
 * <p>The two {@link DistributedLock#asJavaLock() Java views} of a pair know which thread holds
 * which. A thread that holds one of them and makes a blocking acquire of the other lock (through
 * its Java view, or its {@code acquire}/{@code tryAcquire} methods) gets an
 * {@link IllegalStateException} at once, before any call to the backend:
 * <ul>
 *   <li>read held, write asked (an upgrade): the writer would wait for this thread's own reader,
 *   forever with {@code lock()}; two readers upgrading at once would each wait for the other;</li>
 *   <li>write held, read asked (a downgrade): the reader would wait for this thread's own writer.</li>
 * </ul>
 * Leases taken with {@code acquire} directly are owned by their {@link Lease} object, not a thread,
 * so they are not tracked: a thread that holds a read lease that way and asks for the write lock
 * waits until its wait elapses. {@code acquireAsync} is never refused: its caller does not block.
 */
public final class ReadWriteLockPair implements DistributedReadWriteLock {

    private final String name;
    private final Side read;
    private final Side write;

    private ReadWriteLockPair(LeaseEngine engine, String name, EngineLock readLock, EngineLock writeLock) {
        this.name = name;
        this.read = new Side(engine, readLock, "read", "write");
        this.write = new Side(engine, writeLock, "write", "read");
        read.other = write;
        write.other = read;
    }

    /**
     * The read-write lock {@code name} of {@code engine}: {@code readProtocol} admits readers,
     * {@code writeProtocol} the writer (both with the same {@code options}).
     *
     * @throws IllegalArgumentException if the name is unusable or options is null
     * @throws dev.leasehold.LeaseholdException if the engine is closed
     */
    public static ReadWriteLockPair of(LeaseEngine engine, String name, LockOptions options,
                                       LockProtocol readProtocol, LockProtocol writeProtocol) {
        return new ReadWriteLockPair(engine, name, (EngineLock) engine.lock(name, options, readProtocol),
                (EngineLock) engine.lock(name, options, writeProtocol));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock[" + name + ", " + read.options() + "]";
    }

    /**
     * One lock of the pair: the engine lock, refusing a blocking acquire that would wait for this thread.
     * Its Java view is looked up when asked for, not made with the pair: a pair used only through
     * {@code acquire} registers no view, so a client that locks a fresh name per job keeps nothing per
     * name in {@link JavaLockViews}.
     */
    private static final class Side implements DistributedLock {

        private final LeaseEngine engine;
        private final EngineLock lock;
        private final String kind;
        private final String otherKind;
        private Side other;

        Side(LeaseEngine engine, EngineLock lock, String kind, String otherKind) {
            this.engine = engine;
            this.lock = lock;
            this.kind = kind;
            this.otherKind = otherKind;
        }

        @Override
        public String name() {
            return lock.name();
        }

        @Override
        public LockOptions options() {
            return lock.options();
        }

        @Override
        public Lease acquire() {
            refuseSelfWait();
            return lock.acquire();
        }

        @Override
        public Lease acquire(Duration wait) {
            refuseSelfWait();
            return lock.acquire(wait);
        }

        @Override
        public Optional<Lease> tryAcquire(Duration wait) {
            refuseSelfWait();
            return lock.tryAcquire(wait);
        }

        @Override
        public CompletableFuture<Lease> acquireAsync(Duration wait) {
            return lock.acquireAsync(wait);
        }

        /** Shared with every other pair of this client and name, so nested calls re-enter. */
        @Override
        public ReentrantLeaseLock asJavaLock() {
            return engine.javaLockViews().of(lock.queueKey(), this);
        }

        /**
         * Throws if this thread holds the other lock's Java view. A view that is held stays registered
         * (each hold references it), so one that is not registered is held by nobody.
         */
        private void refuseSelfWait() {
            ReentrantLeaseLock otherView = engine.javaLockViews().registered(other.lock.queueKey());
            if (otherView == null || !otherView.isHeldByCurrentThread()) {
                return;
            }
            String why = kind.equals("write")
                    ? "a read lease is never upgraded to a write lease: the writer would wait for this thread's "
                        + "own reader (and two threads upgrading at once would wait for each other forever)"
                    : "the reader would wait for this thread's own writer, which a read lease never shares";
            String advice = kind.equals("write")
                    ? "release the read lock first (unlock() until holdCount() is 0), then acquire the write lock "
                        + "and re-check what you read, since another writer may have gone in between"
                    : "release the write lock first (unlock() until holdCount() is 0), then acquire the read lock";
            throw new IllegalStateException("The current thread holds the " + otherKind + " lock of '" + name()
                    + "' through asJavaLock() and asked for its " + kind + " lock: " + why + "; " + advice);
        }

        @Override
        public String toString() {
            return "DistributedLock[" + name() + " (" + kind + "), " + options() + "]";
        }
    }
}
