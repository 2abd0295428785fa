package dev.leasehold.zookeeper;

import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.spi.InspectedBackend;
import dev.leasehold.spi.KindProtocols;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The ZooKeeper backend behind a {@link ZooKeeperLockClient}: one {@link ZooKeeperProtocol} per lock
 * kind (one per number of permits for semaphores), sharing the client's session watch, node expiry
 * timers and session grants; the {@link ZooKeeperInspector}; leader records by
 * {@link ZooKeeperLeaderRecords}: the data of the leader's own lock node, the head of the election's
 * queue, which disappears with the node (a release, or the session's expiry); and the Curator
 * framework's end.
 */
final class ZooKeeperBackend extends InspectedBackend<ZooKeeperInspector> {

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final String ensemble;
    private final ScheduledExecutorService timers;
    private final SessionWatch session;
    private final OwedCleanups owed = new OwedCleanups();
    private final NodeExpiry expiry;
    private final KindProtocols<ZooKeeperProtocol> protocols;

    /**
     * @param acls          the digest user's ACLs every lock directory must carry, or null without digest authentication
     * @param localRenewals the defect kept for the fault suite ({@link ZooKeeperLocks.Builder#unsafeLocalRenewals})
     */
    ZooKeeperBackend(CuratorFramework curator, boolean ownsCurator, String ensemble, Duration sessionTimeout,
                     Duration operationTimeout, DigestAcls acls, boolean localRenewals) {
        super(new ZooKeeperInspector(curator, ensemble, operationTimeout), new ZooKeeperLeaderRecords(curator, ensemble));
        this.curator = curator;
        this.ownsCurator = ownsCurator;
        this.ensemble = ensemble;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "leasehold-zookeeper-timers");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.timers = executor;
        this.session = new SessionWatch(curator, timers, sessionTimeout);
        this.expiry = new NodeExpiry(timers);
        SessionGrant grants = new SessionGrant(session::sessionTimeout, () -> {
            try {
                return curator.getZookeeperClient().getZooKeeper().getSessionId();
            } catch (Exception notConnected) {
                return 0;
            }
        });
        EnsembleCheck.check(curator.getZookeeperClient().getCurrentConnectionString(), session.sessionTimeout(), grants);
        curator.getConnectionStateListenable().addListener(session);
        curator.getConnectionStateListenable().addListener(owed);
        // Only over a framework of its own does the client know the ACL Curator would give a lock node.
        DirectCalls direct = ownsCurator
                ? new DirectCalls(curator, acls == null ? ZooDefs.Ids.OPEN_ACL_UNSAFE : acls.getDefaultAcl()) : null;
        this.protocols = new KindProtocols<>(kind ->
                new ZooKeeperProtocol(curator, ensemble, kind, session, expiry, grants, localRenewals, acls, direct, owed));
    }

    @Override
    public String describe() {
        return ensemble;
    }

    /** Every kind, in one queue per name; the options change nothing in how a kind is served here. */
    @Override
    public ZooKeeperProtocol protocol(LockKind kind, LockOptions options) {
        return protocols.of(kind);
    }

    /** The held permits counted from one listing of the name's queue. */
    @Override
    public int availablePermits(String name, int permits) {
        return inspecting().queue(name).availablePermits(name, permits);
    }

    /**
     * False: a ZooKeeper semaphore talks to no server when it is created; each acquire checks the
     * number of permits against the queue it reads anyway.
     */
    @Override
    public boolean checksPermitsAtCreation() {
        return false;
    }

    ZooKeeperInspector zooKeeperInspector() {
        return inspecting();
    }

    /**
     * Stops watching the session, ends the timer thread, and closes the Curator framework if the
     * client created it; a framework given to {@link ZooKeeperLocks#using} stays open, its session
     * with the nodes of failed releases on it, so their expiries still run at their time
     * ({@link NodeExpiry#handOver}), and the clean-ups of given-up acquisitions still owed are sent
     * on its reconnections until paid ({@link OwedCleanups#closeWithin}).
     */
    @Override
    public void close() {
        curator.getConnectionStateListenable().removeListener(session);
        owed.closeWithin(curator, ownsCurator);
        if (!ownsCurator) {
            expiry.handOver();
        }
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
}
