package dev.leasehold.zookeeper;

import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.engine.LeaseEngine;
import org.apache.curator.framework.CuratorFramework;

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
 * <p>Kinds: {@link #lock(String, LockOptions)} (one acquisition per client reaches the server at a
 * time), {@link #fairLock(String, LockOptions)} (every acquisition queues on the server: granted in
 * the ensemble's order), {@link #readWriteLock(String, LockOptions)} (a reader waits for every writer
 * ahead, so waiting writers are not starved) and {@link #semaphore(String, int, LockOptions)} (which
 * talks to no server when it is created: each acquire checks its number of permits against the
 * queue). Which kinds exclude each other is the same on every backend: an exclusive lease excludes
 * the other exclusive and the read leases of the name, readers share, permits share up to their
 * number, and the lock family and the semaphore family of one name do not exclude each other (but
 * queue in one arrival order, so a waiting permit delays a later mutex of the name).
 *
 * <p><b>Diagnostics.</b> {@link #inspect(String)} reads the name's queue from the leader: the holders
 * (readers, permits, or one exclusive holder, which reads as {@link dev.leasehold.LockKind#MUTEX},
 * since nodes do not tell the mutex, the fair lock and the write lock apart), the waiters, no
 * {@code remaining} (a node lives as long as its session), and the last token: while held, the
 * newest holder's czxid, exactly the last token issued; when free, the directory's {@code pzxid},
 * at least every token issued for the name and below every later one; empty once ZooKeeper has
 * removed the empty directory. {@link #list(String)} finds held names by glob from one listing of
 * the lock root. {@link #breakLock(String, String)} deletes the whole queue in one {@code multi}, so
 * every lease granted after it has a greater token than the broken holder's (waiters queue again).
 * Everything else of the {@link LockClient} API is core's {@link EngineLockClient}; this class adds
 * the raw queue, {@link #queue(String)}.
 */
public final class ZooKeeperLockClient extends EngineLockClient {

    private final ZooKeeperBackend backend;

    ZooKeeperLockClient(ZooKeeperBackend backend, LeaseEngine.Settings settings) {
        super(backend, settings);
        this.backend = backend;
    }

    /**
     * The queue of lock {@code name} as the ensemble has it now: every acquisition's node in order,
     * with its kind, its holder id (redacted) and whether it holds. One round trip.
     *
     * @throws IllegalArgumentException if the name is unusable
     * @throws dev.leasehold.LockUnavailableException if the ensemble cannot be reached in time
     * @throws dev.leasehold.LockClientClosedException if this client is closed
     */
    public LockQueue queue(String name) {
        String checked = backend.lockName(name);
        ensureOpen();
        return backend.zooKeeperInspector().queue(checked);
    }
}
