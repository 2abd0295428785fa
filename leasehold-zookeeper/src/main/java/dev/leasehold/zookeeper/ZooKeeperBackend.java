package dev.leasehold.zookeeper;

import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.spi.Backend;
import dev.leasehold.spi.Inspector;
import dev.leasehold.spi.LeaderRecords;
import org.apache.curator.framework.CuratorFramework;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The ZooKeeper backend behind a {@link ZooKeeperLockClient}: one {@link ZooKeeperProtocol} per lock
 * kind (one per number of permits for semaphores), sharing the client's session watch, node expiry
 * timers and session grants; the {@link ZooKeeperInspector}; and the Curator framework's end.
 */
final class ZooKeeperBackend implements Backend {

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final String ensemble;
    private final ScheduledExecutorService timers;
    private final SessionWatch session;
    private final NodeExpiry expiry;
    private final SessionGrant grants;
    private final DigestAcls acls;
    private final boolean localRenewals;
    /** One protocol per kind: the engine keeps its local queues and Java lock views per protocol. */
    private final Map<LockKind, ZooKeeperProtocol> protocols = new ConcurrentHashMap<>();
    private final ZooKeeperInspector inspector;
    private final ZooKeeperLeaderRecords leaderRecords;

    /**
     * @param acls          the digest user's ACLs every lock directory must carry, or null without digest authentication
     * @param localRenewals the defect kept for the fault suite ({@link ZooKeeperLocks.Builder#unsafeLocalRenewals})
     */
    ZooKeeperBackend(CuratorFramework curator, boolean ownsCurator, String ensemble, Duration sessionTimeout,
                     Duration operationTimeout, DigestAcls acls, boolean localRenewals) {
        this.curator = curator;
        this.ownsCurator = ownsCurator;
        this.ensemble = ensemble;
        this.acls = acls;
        this.localRenewals = localRenewals;
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
        this.inspector = new ZooKeeperInspector(curator, ensemble, operationTimeout);
        this.leaderRecords = new ZooKeeperLeaderRecords(curator, ensemble);
    }

    @Override
    public String describe() {
        return ensemble;
    }

    /** Every kind, in one queue per name; the options change nothing in how a kind is served here. */
    @Override
    public ZooKeeperProtocol protocol(LockKind kind, LockOptions options) {
        return protocols.computeIfAbsent(kind, this::newProtocol);
    }

    private ZooKeeperProtocol newProtocol(LockKind kind) {
        return new ZooKeeperProtocol(curator, ensemble, kind, session, expiry, grants, localRenewals, acls);
    }

    /** The held permits counted from one listing of the name's queue. */
    @Override
    public int availablePermits(String name, int permits) {
        return inspector.queue(name).availablePermits(name, permits);
    }

    /**
     * False: a ZooKeeper semaphore talks to no server when it is created; each acquire checks the
     * number of permits against the queue it reads anyway.
     */
    @Override
    public boolean checksPermitsAtCreation() {
        return false;
    }

    @Override
    public Optional<Inspector> inspector() {
        return Optional.of(inspector);
    }

    ZooKeeperInspector zooKeeperInspector() {
        return inspector;
    }

    /**
     * Leader records of elections: the data of the leader's own lock node, the head of the
     * election's queue; it disappears with the node (a release, or the session's expiry).
     */
    @Override
    public LeaderRecords leaderRecords() {
        return leaderRecords;
    }

    /**
     * Stops watching the session, ends the timer thread, and closes the Curator framework if the
     * client created it (a framework given to {@link ZooKeeperLocks#using} stays open).
     */
    @Override
    public void close() {
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
}
