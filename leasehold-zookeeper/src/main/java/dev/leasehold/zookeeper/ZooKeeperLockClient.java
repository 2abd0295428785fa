package dev.leasehold.zookeeper;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.engine.ReadWriteLockPair;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.LeaderRecords;
import dev.leasehold.engine.EngineSemaphore;
import dev.leasehold.spi.Args;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link LockClient} on a ZooKeeper ensemble, through Curator. Create it with
 * {@link ZooKeeperLocks#connect(String)}, {@link ZooKeeperLocks#builder()} or
 * {@link ZooKeeperLocks#using(CuratorFramework)}. Thread-safe; share one per application.
 *
 * <p><b>What it guarantees.</b> A lock is a queue of ephemeral sequential nodes in one directory
 * per lock name; the ensemble orders them by consensus, so the holder is the one a majority of
 * servers agreed on, and a leader failover loses no lock. Each waiter watches only the node ahead
 * of it (the semaphore, blocked by the count, watches the directory). Every grant and every renewal
 * goes through the leader (the acquire's {@code create}, or a {@code sync} before the read), so a
 * server cut off from its quorum cannot keep a lease alive, and a lease's local deadline is the
 * earlier of its ttl and what the quorum still grants the session ({@link SessionGrant}: at least a
 * third of the session timeout, more when renewals confirm it), so it never outlasts the session on the
 * leader, whatever the ensemble's {@code syncLimit}. A lease is also lost when the session is lost,
 * or suspended for a sixth of the session timeout (see {@link SessionWatch}). The ttl of
 * {@link LockOptions} still applies (the client deletes a node whose lease was not renewed within
 * its ttl), so a fixed lease ends on time.
 *
 * <p><b>Fencing tokens.</b> A lease's token is the czxid of its node: the zxid of the transaction
 * that created it. Zxids increase strictly across the whole ensemble (they carry the leader's epoch
 * in their high 32 bits, so a new leader's exceed the old one's). Every kind of one name queues in
 * the same directory, and core's {@link dev.leasehold.spi.QueueRule} grants a node only once every
 * older node is granted: the granted nodes are a prefix of the queue, so a lease's token exceeds
 * every token granted before it for that name, whatever the kinds.
 *
 * <p><b>What consensus does not fix.</b> A holder paused past its session (GC, SIGSTOP) still
 * believes it holds the lock when it wakes; another client may hold it by then. Pass the token
 * to a {@link dev.leasehold.FenceGuard}: it refuses the late holder's writes.
 *
 * <p>Kinds: {@link #lock} (one acquisition per client reaches the server at a time), {@link #fairLock}
 * (every acquisition queues on the server: granted in the ensemble's order), {@link #readWriteLock}
 * (a reader waits for every writer ahead, so waiting writers are not starved) and
 * {@link #semaphore}. Which kinds exclude each other is the same on every backend: an exclusive
 * lease excludes the other exclusive and the read leases of the name, readers share, permits share
 * up to their number, and the lock family and the semaphore family of one name do not exclude each
 * other (but queue in one arrival order, so a waiting permit delays a later mutex of the name).
 */
public final class ZooKeeperLockClient implements LockClient, LeaderRecords.Source {

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final String ensemble;
    private final LeaseEngine engine;
    private final ScheduledExecutorService timers;
    private final SessionWatch session;
    private final NodeExpiry expiry;
    private final SessionGrant grants;
    private final boolean localRenewals;
    private final ZooKeeperProtocol mutex;
    private final ZooKeeperProtocol fair;
    private final ZooKeeperProtocol reader;
    private final ZooKeeperProtocol writer;
    private final Map<Integer, ZooKeeperProtocol> semaphores = new ConcurrentHashMap<>();
    private final Duration operationTimeout;
    private final DigestAcls acls;
    private final ZooKeeperLeaderRecords leaderRecords;
    private volatile boolean closed;

    /**
     * @param acls          the digest user's ACLs every lock directory must carry, or null without digest authentication
     * @param localRenewals the defect kept for the fault suite ({@link ZooKeeperLocks.Builder#unsafeLocalRenewals})
     */
    ZooKeeperLockClient(CuratorFramework curator, boolean ownsCurator, String ensemble, Duration sessionTimeout,
                        LeaseEngine.Settings settings, DigestAcls acls, boolean localRenewals) {
        this.localRenewals = localRenewals;
        this.curator = curator;
        this.acls = acls;
        this.ownsCurator = ownsCurator;
        this.ensemble = ensemble;
        this.operationTimeout = settings.operationTimeout();
        this.engine = new LeaseEngine(settings, ensemble);
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "leasehold-zookeeper-timers");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.timers = executor;
        this.session = new SessionWatch(curator, timers, sessionTimeout);
        this.expiry = new NodeExpiry(timers);
        this.grants = new SessionGrant(session::sessionTimeout, () -> {
            try {
                return curator.getZookeeperClient().getZooKeeper().getSessionId();
            } catch (Exception notConnected) {
                return 0;
            }
        });
        EnsembleCheck.check(curator.getZookeeperClient().getCurrentConnectionString(), session.sessionTimeout(), grants);
        curator.getConnectionStateListenable().addListener(session);
        this.mutex = protocol("lock", NodeKind.exclusive(Admission.EXCLUSIVE));
        this.fair = protocol("fair_lock", NodeKind.exclusive(Admission.SHARED));
        this.reader = protocol("read", NodeKind.read());
        this.writer = protocol("write", NodeKind.exclusive(Admission.EXCLUSIVE));
        this.leaderRecords = new ZooKeeperLeaderRecords(curator, ensemble);
    }

    /**
     * Leader records of {@link #leadership elections}: the data of the leader's own lock node, the
     * head of the election's queue; it disappears with the node (a release, or the session's expiry).
     */
    @Override
    public LeaderRecords leaderRecords() {
        return leaderRecords;
    }

    private ZooKeeperProtocol protocol(String kind, NodeKind rule) {
        return new ZooKeeperProtocol(curator, ensemble, kind, rule, session, expiry, grants, localRenewals, acls);
    }

    @Override
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    /**
     * The exclusive lock {@code name}: one acquisition of this client at a time waits on the
     * server, the others in a local queue.
     *
     * @throws IllegalArgumentException if the name is unusable or options is null
     * @throws dev.leasehold.LockClientClosedException if this client is closed
     */
    @Override
    public DistributedLock lock(String name, LockOptions options) {
        return engine.lock(name, options, mutex);
    }

    /**
     * A fair lock: exclusive, granted in the order the ensemble created the acquisitions' nodes,
     * across every client; a release wakes only the next waiter. A waiter that died leaves the
     * queue when its session expires. A fair lock and a mutex of one name exclude each other and
     * share one order.
     */
    @Override
    public DistributedLock fairLock(String name, LockOptions options) {
        return engine.lock(name, options, fair);
    }

    /**
     * Many readers or one writer; a reader queues behind every writer ahead of it, so a waiting
     * writer blocks new readers. The write lock excludes the mutex of the same name too.
     */
    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions options) {
        return ReadWriteLockPair.of(engine, name, options, reader, writer);
    }

    /**
     * A semaphore of {@code permits} leases on {@code name}; each permit is a lease with its own
     * token. The number of permits is part of each permit's node name, and an acquire that finds a
     * permit ahead of it asked under another number fails with
     * {@link dev.leasehold.PermitsMismatchException} (nothing is taken). A waiter blocked by the
     * count watches the name's directory, so a release wakes every such waiter of the name.
     *
     * @throws IllegalArgumentException if the name is unusable, options is null or permits is
     *                                  outside [1, {@link DistributedSemaphore#MAX_PERMITS}]
     */
    @Override
    public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
        Args.lockName(name);
        Args.permits(permits);
        // One protocol per number of permits: the engine's local queues and Java views are per protocol.
        ZooKeeperProtocol permit = semaphores.computeIfAbsent(permits, count -> protocol("semaphore", NodeKind.permit(count)));
        return new EngineSemaphore(engine.lock(name, options, permit), permits, () -> available(name, permits));
    }

    private int available(String name, int permits) {
        return inspect(name).availablePermits(name, permits);
    }

    /**
     * The queue of lock {@code name} as the ensemble has it now: every acquisition's node in order,
     * with its kind, its holder id (redacted) and whether it holds. One round trip.
     *
     * @throws IllegalArgumentException if the name is unusable
     * @throws dev.leasehold.LockUnavailableException if the ensemble cannot be reached in time
     */
    public LockQueue inspect(String name) {
        Args.lockName(name);
        engine.ensureOpen();
        String operation = "the inspect of '" + name + "'";
        CompletableFuture<List<String>> listed = new CompletableFuture<>();
        try {
            curator.getChildren().inBackground((client, event) -> {
                KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
                if (code == KeeperException.Code.NONODE) {
                    listed.complete(List.of());
                } else if (code != KeeperException.Code.OK) {
                    listed.completeExceptionally(ZooKeeperErrors.of(ensemble, operation, code));
                } else {
                    listed.complete(event.getChildren());
                }
            }).forPath(LockPaths.directory(name));
            return LockQueue.of(name, listed.get(operationTimeout.toNanos(), TimeUnit.NANOSECONDS));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw ZooKeeperErrors.of(ensemble, operation, interrupted);
        } catch (ExecutionException failed) {
            throw ZooKeeperErrors.of(ensemble, operation, (Exception) failed.getCause());
        } catch (TimeoutException slow) {
            throw ZooKeeperErrors.of(ensemble, operation, KeeperException.Code.OPERATIONTIMEOUT);
        } catch (Exception error) {
            throw ZooKeeperErrors.of(ensemble, operation, error);
        }
    }

    @Override
    public String describe() {
        return ensemble;
    }

    /** Leases of this client that are held right now (not released, not lost). */
    public int heldLeases() {
        return engine.heldLeases();
    }

    /**
     * Ends this client's leases (their nodes are deleted, so the next waiters go at once), then
     * its timer thread, and closes the Curator framework if this client created it (a framework
     * given to {@link ZooKeeperLocks#using} stays open). Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        engine.close();
        curator.getConnectionStateListenable().removeListener(session);
        timers.shutdownNow();
        try {
            timers.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        if (ownsCurator) {
            curator.close();
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperLockClient[" + ensemble + "]";
    }
}
