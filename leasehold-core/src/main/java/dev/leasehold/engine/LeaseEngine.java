package dev.leasehold.engine;

import dev.leasehold.spi.Args;
import dev.leasehold.DistributedLock;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockClientClosedException;
import dev.leasehold.LockOptions;
import dev.leasehold.spi.LockProtocol;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The runtime of one client, shared by every lock kind and backend protocol it offers: the
 * waiting engine and its local queues, the lease lifecycle, the single {@link RenewalScheduler}
 * thread, and the set of held leases. A backend client creates one engine and turns each kind's
 * {@link LockProtocol} into locks with {@link #lock(String, LockOptions, LockProtocol)}; it closes
 * the engine with the client.
 */
public final class LeaseEngine implements AutoCloseable {

    /**
     * Engine tuning, and where it reports its events.
     *
     * @param operationTimeout bound on every single backend call (acquire attempt, renewal,
     *                         release); an acquire returns or throws within its wait plus this
     * @param maxRecheck       longest a waiter sleeps between attempts when no release
     *                         notification wakes it (jittered between half and all of it)
     * @param events           receives the engine's events for meters; {@link LeaseEvents#NONE} for none
     */
    public record Settings(Duration operationTimeout, Duration maxRecheck, LeaseEvents events) {

        public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(3);
        public static final Duration DEFAULT_MAX_RECHECK = Duration.ofSeconds(1);

        /** @throws IllegalArgumentException if a duration is outside [1 ms, 5 min] or events is null */
        public Settings {
            Args.within("operationTimeout", operationTimeout, Duration.ofMillis(1), Duration.ofMinutes(5));
            Args.within("maxRecheck", maxRecheck, Duration.ofMillis(1), Duration.ofMinutes(5));
            LeaseEvents.require(events);
        }

        /** Settings that report no events. */
        public Settings(Duration operationTimeout, Duration maxRecheck) {
            this(operationTimeout, maxRecheck, LeaseEvents.NONE);
        }

        /** These settings, reporting to {@code events}. */
        public Settings withEvents(LeaseEvents events) {
            return new Settings(operationTimeout, maxRecheck, events);
        }

        public static Settings defaults() {
            return new Settings(DEFAULT_OPERATION_TIMEOUT, DEFAULT_MAX_RECHECK);
        }

        /**
         * How long a waiter's registration on the backend outlives its last re-check: three re-check
         * periods and one operation, so a live waiter, which re-registers at every re-check, never
         * lapses, and a crashed one stops counting within seconds.
         */
        public Duration waiterRegistration() {
            return maxRecheck.multipliedBy(3).plus(operationTimeout);
        }
    }

    private final Settings settings;
    private final RenewalScheduler scheduler = new RenewalScheduler();
    private final WaitPolicy waitPolicy;
    private final Executor callbackExecutor = ForkJoinPool.commonPool();
    private final Set<ManagedLease> held = ConcurrentHashMap.newKeySet();
    /** In registration order, so close() can tell what it already waits for. */
    private final Queue<CompletableFuture<Void>> closingWork = new ConcurrentLinkedQueue<>();
    /** Clean-ups of acquisitions that left their queue but may still have to abandon on the backend. */
    private final Set<CompletableFuture<Void>> cleanups = ConcurrentHashMap.newKeySet();
    private final WaitQueues queues = new WaitQueues();
    private final RecheckGroups rechecks = new RecheckGroups(scheduler);
    private final JavaLockViews javaLockViews = new JavaLockViews();
    private final HolderIds holderIds = new HolderIds();
    private volatile boolean closed;
    private final String description;

    private static final String CLOSED = "the client was closed; its lock was released";

    /**
     * @param description where the client connects, without credentials, for messages
     */
    public LeaseEngine(Settings settings, String description) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.description = Objects.requireNonNull(description, "description");
        this.waitPolicy = new WaitPolicy(settings.maxRecheck());
    }

    /**
     * A lock of the kind {@code protocol} implements.
     *
     * @throws IllegalArgumentException if the name is unusable or options is null
     * @throws LockClientClosedException if the engine is closed
     */
    public DistributedLock lock(String name, LockOptions options, LockProtocol protocol) {
        Args.lockName(name);
        Args.lockOptions(options);
        Objects.requireNonNull(protocol, "protocol");
        ensureOpen();
        return new EngineLock(name, options, this, protocol);
    }

    /** Leases of this engine that are still held (not released, not lost). */
    public int heldLeases() {
        return held.size();
    }

    /** Lock names on which this client has a queued, waiting or holding acquisition. */
    public int activeLockNames() {
        return queues.names();
    }

    /** Acquisitions of this client queued, waiting or holding on {@code name}. */
    public int queuedAcquisitions(String name) {
        return queues.size(name);
    }

    /** Timer tasks pending on the renewal scheduler: renewal ticks and waiter timers. */
    public int pendingTimers() {
        return scheduler.pendingTasks();
    }

    /**
     * Ends every held lease and stops the renewal scheduler. Idempotent. Each held lease is marked
     * lost ({@link dev.leasehold.Lease#lost()} completes with "the client was closed") and its key
     * is deleted by compare-and-delete, waiting at most the operation timeout, so other clients
     * take the lock at once instead of waiting for the ttl (as etcd and Curator free a session's
     * locks when it closes). Acquisitions still waiting fail, and what they may have taken is
     * cleaned up before this returns (within the same bound), as is what an acquisition called off
     * earlier still has to clean up. A lease delivered while this runs is ended the same way.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<CompletableFuture<Void>> endings = new ArrayList<>();
        Set.copyOf(held).forEach(lease -> endings.add(lease.releaseOnClose(CLOSED)));
        LeaseholdException closing = new LeaseholdException("The lock client was closed while this acquire waited");
        queues.all().forEach(operation -> endings.add(operation.abandonOnClose(closing)));
        // Read after the queues: an acquisition registers its clean-up before it leaves its queue.
        endings.addAll(cleanups);
        // Work that ends what an operation took while this ran (the release of a lease granted
        // meanwhile, an abandon that must follow an attempt in flight) registers itself in
        // closingWork, possibly after this reads it: wait again until nothing new came.
        long deadline = System.nanoTime() + settings.operationTimeout().toNanos();
        int awaited = 0;
        while (true) {
            List<CompletableFuture<Void>> more = List.copyOf(closingWork);
            endings.addAll(more.subList(Math.min(awaited, more.size()), more.size()));
            awaited = more.size();
            try {
                CompletableFuture.allOf(endings.toArray(CompletableFuture[]::new))
                        .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException slow) {
                // Each release logs its own failure; those keys expire by their ttl.
                break;
            }
            if (closingWork.size() == awaited) {
                break;
            }
        }
        scheduler.close();
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Throws if the client is closed; backends call it before any server call of their own
     * (inspect, a semaphore's count), so a closed client always says so the same way.
     *
     * @throws LockClientClosedException if {@link #close()} was called
     */
    public void ensureOpen() {
        if (closed) {
            throw new LockClientClosedException(description);
        }
    }

    /**
     * A new HELD lease, tracked until it ends (reported to {@code trace} too), with its renewal started. If the client closed
     * meanwhile, the lease is ended at once like those {@link #close()} found.
     */
    ManagedLease newLease(EngineLock lock, String holder, long token, long sentAtNanos, String requester,
                          AcquisitionTrace trace, Consumer<ManagedLease> onEnd) {
        long grantedAt = System.nanoTime();
        ManagedLease lease = new ManagedLease(this, lock, holder, token, sentAtNanos, requester, trace, ended -> {
            // A release retried after a failure ends the lease again: report the first end only.
            if (held.remove(ended)) {
                events().leaseEnded(System.nanoTime() - grantedAt);
                trace.leaseEnded();
            }
            onEnd.accept(ended);
        });
        held.add(lease);
        events().leaseStarted();
        if (!closed) {
            try {
                lease.start();
            } catch (RejectedExecutionException schedulerStopped) {
                // close() ran to its end meanwhile: the flag is set, handled below.
            }
        }
        // close() sets the flag before it copies the held set, so a lease added after the copy sees it.
        if (closed) {
            // Registered before the lease ends (and its operation leaves the queue), so close()
            // finds either the operation or this release.
            CompletableFuture<Void> released = new CompletableFuture<>();
            closingWork.add(released);
            lease.releaseOnClose(CLOSED).whenComplete((ignored, error) -> released.complete(null));
        }
        return lease;
    }

    Settings settings() {
        return settings;
    }

    LeaseEvents events() {
        return settings.events();
    }

    HolderIds holderIds() {
        return holderIds;
    }

    WaitQueues queues() {
        return queues;
    }

    /**
     * The thread that took a lease of this client which holds {@code lock}'s kind and name right
     * now, or null: for a timeout's message. Scans the held leases; runs only on a timeout.
     */
    String localHolderThread(EngineLock lock) {
        return held.stream()
                .filter(lease -> lease.isFor(lock) && lease.isValid())
                .map(ManagedLease::requester)
                .findFirst().orElse(null);
    }

    /**
     * Work that {@link #close()} must wait for before the backend's connections close. Kept only
     * once the client is closing, so a long-lived client accumulates nothing.
     */
    void trackClosingWork(CompletableFuture<Void> work) {
        if (closed) {
            closingWork.add(work);
        }
    }

    /**
     * A clean-up under way that {@link #close()} must wait for (within its bound), though its
     * acquisition already left its queue: its abandon waits for the last attempt's work to end on the
     * backend, and sent once the backend's connections closed it would be refused. Kept until it completes.
     */
    void trackCleanup(CompletableFuture<Void> cleanup) {
        cleanups.add(cleanup);
        cleanup.whenComplete((ignored, error) -> cleanups.remove(cleanup));
    }

    JavaLockViews javaLockViews() {
        return javaLockViews;
    }

    RenewalScheduler scheduler() {
        return scheduler;
    }

    WaitPolicy waitPolicy() {
        return waitPolicy;
    }

    RecheckGroups rechecks() {
        return rechecks;
    }

    Executor callbackExecutor() {
        return callbackExecutor;
    }
}
