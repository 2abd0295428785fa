package dev.leasehold.zookeeper;

import dev.leasehold.Lease;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.engine.LeaseEngine;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The direct calls ({@link DirectCalls}) when an answer is lost: the client's own framework (direct
 * calls on) gets a handle that, when told to, diverts or loses one call; every other call goes to
 * the real ensemble.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DirectCallsFaultTest {

    private final Ensemble ensemble = Ensemble.shared();
    private final AtomicBoolean diverting = new AtomicBoolean();
    /** The other session's handle the diverted creates go to. */
    private final AtomicReference<ZooKeeper> otherSession = new AtomicReference<>();
    private final AtomicReference<String> divertedPath = new AtomicReference<>();
    /** Whether the next asynchronous delete's answer is lost (after the servers deleted the node). */
    private final AtomicBoolean losingDelete = new AtomicBoolean();
    /** When set, the next asynchronous create's answer waits for it to complete. */
    private final AtomicReference<CompletableFuture<Void>> holdingCreate = new AtomicReference<>();
    /** When set, the next asynchronous delete's answer waits for it to complete. */
    private final AtomicReference<CompletableFuture<Void>> holdingDelete = new AtomicReference<>();
    /** Whether the next {@code multi}'s answer is lost (after the servers applied it). */
    private final AtomicBoolean losingMulti = new AtomicBoolean();
    /** The framework of the last {@link #losingClient()}. */
    private final AtomicReference<CuratorFramework> losingCurator = new AtomicReference<>();
    /** How many operations each asynchronous {@code multi} sent held. */
    private final List<Integer> multiSizes = new CopyOnWriteArrayList<>();

    /**
     * A handle whose next asynchronous create, while {@link #diverting}, is made on {@link #otherSession}
     * and answered as lost, whose next asynchronous delete, while {@link #losingDelete}, is made
     * and answered as lost (or, while {@link #holdingDelete}, answered when the test says; creates
     * likewise while {@link #holdingCreate}), and whose
     * next {@code multi}, while {@link #losingMulti}, is applied and answered as lost.
     */
    private final class LosingHandle extends ZooKeeper {

        LosingHandle(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly)
                throws IOException {
            super(connectString, sessionTimeout, watcher, canBeReadOnly);
        }

        @Override
        public void create(String path, byte[] data, List<ACL> acl, CreateMode createMode,
                           AsyncCallback.Create2Callback callback, Object context) {
            CompletableFuture<Void> held = holdingCreate.getAndSet(null);
            if (held != null) {
                super.create(path, data, acl, createMode, (rc, answeredPath, answeredContext, name, stat) ->
                        held.thenRun(() -> callback.processResult(rc, answeredPath, answeredContext, name, stat)), context);
                return;
            }
            if (!diverting.getAndSet(false)) {
                super.create(path, data, acl, createMode, callback, context);
                return;
            }
            CompletableFuture.runAsync(() -> {
                try {
                    divertedPath.set(otherSession.get().create(path, data, acl, createMode));
                } catch (KeeperException | InterruptedException failed) {
                    throw new IllegalStateException(failed);
                }
                callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), path, context, null, null);
            });
        }

        @Override
        public void delete(String path, int version, AsyncCallback.VoidCallback callback, Object context) {
            CompletableFuture<Void> held = holdingDelete.getAndSet(null);
            if (held != null) {
                super.delete(path, version, (rc, answeredPath, answeredContext) ->
                        held.thenRun(() -> callback.processResult(rc, answeredPath, answeredContext)), context);
                return;
            }
            if (!losingDelete.getAndSet(false)) {
                super.delete(path, version, callback, context);
                return;
            }
            super.delete(path, version, (rc, answeredPath, answeredContext) -> callback.processResult(
                    rc == KeeperException.Code.OK.intValue() ? KeeperException.Code.CONNECTIONLOSS.intValue() : rc,
                    answeredPath, answeredContext), context);
        }

        @Override
        public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback callback, Object context) {
            List<Op> sent = new ArrayList<>();
            ops.forEach(sent::add);
            multiSizes.add(sent.size());
            if (!losingMulti.getAndSet(false)) {
                super.multi(sent, callback, context);
                return;
            }
            super.multi(sent, (rc, answeredPath, answeredContext, results) -> callback.processResult(
                    rc == KeeperException.Code.OK.intValue() ? KeeperException.Code.CONNECTIONLOSS.intValue() : rc,
                    answeredPath, answeredContext, rc == KeeperException.Code.OK.intValue() ? null : results), context);
        }
    }

    /** A client over its own framework (so direct calls are on) whose handle is a {@link LosingHandle}. */
    private ZooKeeperLockClient losingClient() {
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(ensemble.connectString())
                .sessionTimeoutMs((int) TestClients.SESSION_TIMEOUT.toMillis())
                .retryPolicy(new RetryNTimes(3, 100))
                .zookeeperFactory(LosingHandle::new)
                .build();
        curator.start();
        losingCurator.set(curator);
        try {
            assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(interrupted);
        }
        LockPaths.ensureRoot(curator, "the test ensemble", Duration.ofSeconds(5));
        return new ZooKeeperLockClient(new ZooKeeperBackend(curator, true, "the test ensemble",
                TestClients.SESSION_TIMEOUT, Duration.ofSeconds(10), null, false), LeaseEngine.Settings.defaults());
    }

    /**
     * A create whose answer was lost is found again by the holder id in its node's name, but only a
     * node of the client's current session may become the lease: a node the acquisition made on an
     * earlier session lives only until the servers expire that session, which can be after this
     * client has moved on to a new one (Curator itself resets a handle that stayed disconnected
     * longer than the session timeout; the servers expire the old session on their own tick). A
     * lease on such a node ends, without a word, when that session does, and another client takes
     * the lock while this one holds it. Curator's protected mode guards the same case
     * ({@code ProtectedMode.validateFoundNode}). Here the diverted create's node stands for that
     * earlier session's.
     */
    @Test
    void aLostCreatesNodeOfAnotherSessionNeverBecomesTheLease() throws Exception {
        String name = "direct-create-session:" + System.nanoTime();
        String directory = LockPaths.directory(name);
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(),
                new RetryNTimes(3, 100));
             CuratorFramework other = CuratorFrameworkFactory.newClient(ensemble.directConnectString(),
                     new RetryNTimes(3, 100));
             ZooKeeperLockClient client = losingClient();
             ZooKeeperLockClient rival = TestClients.connect(ensemble)) {
            admin.start();
            other.start();
            other.blockUntilConnected(10, TimeUnit.SECONDS);
            admin.create().creatingParentContainersIfNeeded().forPath(directory + "/placeholder");
            otherSession.set(other.getZookeeperClient().getZooKeeper());
            diverting.set(true);
            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(10))) {
                assertThat(divertedPath.get()).as("the create was diverted").isNotNull();
                // The other session ends (as the servers expire an earlier session): its node goes.
                other.close();
                Optional<Lease> taken = rival.lock(name).tryAcquire(Duration.ofSeconds(1));
                taken.ifPresent(Lease::close);
                assertThat(taken).as("while the lease is held, no one else takes the lock").isEmpty();
                assertThat(lease.token()).as("the token is the czxid of the one node that stayed")
                        .isEqualTo(onlyNode(admin, directory).getCzxid());
            }
            admin.delete().forPath(directory + "/placeholder");
        }
    }

    /**
     * The stat of the one node in {@code directory} besides the placeholder, once the admin's
     * server (which may lag behind the leader) shows just one.
     */
    private static Stat onlyNode(CuratorFramework admin, String directory) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            List<String> nodes = new ArrayList<>(admin.getChildren().forPath(directory));
            nodes.remove("placeholder");
            Stat stat = nodes.size() == 1 ? admin.checkExists().forPath(directory + "/" + nodes.get(0)) : null;
            if (stat != null) {
                return stat;
            }
            assertThat(System.nanoTime()).as("one node in %s, found %s", directory, nodes).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /**
     * A release whose delete's answer is lost after the servers deleted the node: the retry finds no
     * node, and with the node's own session still alive nothing but this delete can have taken it,
     * so the lease was released, not lost (a {@link dev.leasehold.LeaseScope} would otherwise throw
     * {@code LeaseLostException} for work that held its lease to the end).
     */
    @Test
    void aReleaseWhoseDeletesAnswerIsLostIsAReleaseNotALoss() throws Exception {
        String name = "direct-delete-lost:" + System.nanoTime();
        try (ZooKeeperLockClient client = losingClient();
             ZooKeeperLockClient rival = TestClients.connect(ensemble)) {
            Lease lease = client.lock(name).acquire(Duration.ofSeconds(10));
            losingDelete.set(true);
            assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
            assertThat(losingDelete.get()).as("the delete's answer was lost").isFalse();
            try (Lease next = rival.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(next.token()).isGreaterThan(lease.token());
            }
        }
    }

    /**
     * Releases that threads ask for while a delete is on the wire wait for it and leave together as
     * one {@code multi}. A {@code multi} is all or nothing: when one of its nodes is already gone
     * (a lease lost without its holder knowing yet), the servers refuse it whole, and each delete
     * is sent again alone, so the others are still released and only the lost one reads as lost.
     */
    @Test
    void releasesQueuedBehindADeleteLeaveAsOneMultiAndOneGoneNodeDoesNotFailTheOthers() throws Exception {
        String prefix = "direct-multi:" + System.nanoTime() + ":";
        List<String> names = List.of(prefix + "a", prefix + "b", prefix + "c", prefix + "d");
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(),
                new RetryNTimes(3, 100));
             ZooKeeperLockClient client = losingClient();
             ZooKeeperLockClient rival = TestClients.connect(ensemble)) {
            admin.start();
            List<Lease> leases = new ArrayList<>();
            for (String name : names) {
                leases.add(client.lock(name).acquire(Duration.ofSeconds(10)));
            }
            // c's node goes (as a break would take it): its lease is lost, its holder does not know yet.
            String gone = LockPaths.directory(names.get(2));
            eventually(() -> children(admin, gone).size() == 1, "the admin's server shows c's node");
            admin.delete().forPath(gone + "/" + children(admin, gone).get(0));

            CompletableFuture<Void> firstAnswered = new CompletableFuture<>();
            holdingDelete.set(firstAnswered);
            List<CompletableFuture<ReleaseStatus>> releases = new ArrayList<>();
            for (Lease lease : leases) {
                releases.add(lease.releaseAsync());
            }
            assertThat(multiSizes).as("b, c and d wait for a's delete").isEmpty();
            firstAnswered.complete(null);

            List<ReleaseStatus> statuses = new ArrayList<>();
            for (CompletableFuture<ReleaseStatus> release : releases) {
                statuses.add(release.get(10, TimeUnit.SECONDS));
            }
            assertThat(multiSizes).as("b, c and d in one multi").containsExactly(3);
            assertThat(statuses).as("a alone; b, c and d sent again alone after the multi was refused for c's node")
                    .containsExactly(ReleaseStatus.RELEASED, ReleaseStatus.RELEASED, ReleaseStatus.ALREADY_LOST,
                            ReleaseStatus.RELEASED);
            for (String name : names) {
                eventually(() -> children(admin, LockPaths.directory(name)).isEmpty(), name + "'s node is gone");
            }
            for (int i = 0; i < names.size(); i++) {
                try (Lease next = rival.lock(names.get(i)).acquire(Duration.ofSeconds(5))) {
                    assertThat(next.token()).as(names.get(i)).isGreaterThan(leases.get(i).token());
                }
            }
        }
    }

    /**
     * A {@code multi} of deletes whose answer is lost after the servers applied it: no delete is
     * sent again on the handle (one sent alone would find no node and read as a loss); each release
     * goes the way of a lost delete's answer, through Curator, and reads as released, since nothing
     * but its own delete takes a live session's node.
     */
    @Test
    void aMultiOfDeletesWhoseAnswerIsLostReleasesEachNotLosesIt() throws Exception {
        String prefix = "direct-multi-lost:" + System.nanoTime() + ":";
        List<String> names = List.of(prefix + "a", prefix + "b", prefix + "c");
        try (ZooKeeperLockClient client = losingClient();
             ZooKeeperLockClient rival = TestClients.connect(ensemble)) {
            List<Lease> leases = new ArrayList<>();
            for (String name : names) {
                leases.add(client.lock(name).acquire(Duration.ofSeconds(10)));
            }
            CompletableFuture<Void> firstAnswered = new CompletableFuture<>();
            holdingDelete.set(firstAnswered);
            List<CompletableFuture<ReleaseStatus>> releases = new ArrayList<>();
            for (Lease lease : leases) {
                releases.add(lease.releaseAsync());
            }
            losingMulti.set(true);
            firstAnswered.complete(null);

            for (CompletableFuture<ReleaseStatus> release : releases) {
                assertThat(release.get(10, TimeUnit.SECONDS)).isEqualTo(ReleaseStatus.RELEASED);
            }
            assertThat(losingMulti.get()).as("the multi's answer was lost").isFalse();
            assertThat(multiSizes).as("b and c in one multi").containsExactly(2);
            for (int i = 0; i < names.size(); i++) {
                try (Lease next = rival.lock(names.get(i)).acquire(Duration.ofSeconds(5))) {
                    assertThat(next.token()).as(names.get(i)).isGreaterThan(leases.get(i).token());
                }
            }
        }
    }

    private static List<String> children(CuratorFramework admin, String directory) {
        try {
            return admin.getChildren().forPath(directory);
        } catch (Exception failed) {
            throw new IllegalStateException(failed);
        }
    }

    /**
     * Acquisitions that threads start while a create is on the wire wait for it and leave together
     * as one {@code multi} of creates, each answered with its node's stat: each lease holds the one
     * node made for it, its token that node's czxid. The nodes of one {@code multi} share its zxid,
     * which is why no two of one name ever share a {@code multi}: a name's tokens stay strictly
     * increasing.
     */
    @Test
    void acquiresQueuedBehindACreateLeaveAsOneMultiEachHoldingItsOwnNode() throws Exception {
        String prefix = "direct-create-multi:" + System.nanoTime() + ":";
        List<String> names = List.of(prefix + "a", prefix + "b", prefix + "c", prefix + "d");
        try (CuratorFramework admin = adminWithPlaceholders(names);
             ZooKeeperLockClient client = losingClient()) {
            List<Lease> leases = acquiredBehindAHeldCreate(client, names);

            assertThat(multiSizes).as("b, c and d in one multi").containsExactly(3);
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                Stat node = onlyNode(admin, LockPaths.directory(names.get(i)));
                assertThat(leases.get(i).token()).as(names.get(i) + "'s token is its node's czxid")
                        .isEqualTo(node.getCzxid());
                assertThat(node.getEphemeralOwner()).as(names.get(i) + "'s node is the client's session's")
                        .isEqualTo(session());
                tokens.add(leases.get(i).token());
            }
            assertThat(tokens.subList(1, 4)).as("one multi, one zxid").containsOnly(tokens.get(1));
            assertThat(tokens.get(1)).as("after a's create").isGreaterThan(tokens.get(0));
            releaseAndRemovePlaceholders(admin, leases, names);
        }
    }

    /**
     * A {@code multi} of creates that the servers refuse (one name's directory does not exist yet:
     * its first acquire) made no node; each create is sent again alone, the one without a directory
     * through Curator, which makes it.
     */
    @Test
    void aMultiOfCreatesRefusedForAMissingDirectoryIsSentAgainAlone() throws Exception {
        String prefix = "direct-create-refused:" + System.nanoTime() + ":";
        List<String> names = List.of(prefix + "a", prefix + "b", prefix + "c", prefix + "d");
        List<String> withDirectory = List.of(names.get(0), names.get(1), names.get(3));
        try (CuratorFramework admin = adminWithPlaceholders(withDirectory);
             ZooKeeperLockClient client = losingClient()) {
            List<Lease> leases = acquiredBehindAHeldCreate(client, names);

            assertThat(multiSizes).as("b, c and d in one multi, refused").containsExactly(3);
            for (int i = 0; i < names.size(); i++) {
                Stat node = onlyNode(admin, LockPaths.directory(names.get(i)));
                assertThat(leases.get(i).token()).as(names.get(i)).isEqualTo(node.getCzxid());
            }
            releaseAndRemovePlaceholders(admin, leases, withDirectory);
        }
    }

    /**
     * A {@code multi} of creates whose answer is lost after the servers applied it: each node may
     * have been made, so each acquisition finds its node by the holder id in its name (after a
     * {@code sync}) and makes it the lease, never a second node.
     */
    @Test
    void aMultiOfCreatesWhoseAnswerIsLostFindsEachNodeItMade() throws Exception {
        String prefix = "direct-create-lost:" + System.nanoTime() + ":";
        List<String> names = List.of(prefix + "a", prefix + "b", prefix + "c");
        try (CuratorFramework admin = adminWithPlaceholders(names);
             ZooKeeperLockClient client = losingClient()) {
            losingMulti.set(true);
            List<Lease> leases = acquiredBehindAHeldCreate(client, names);

            assertThat(losingMulti.get()).as("the multi's answer was lost").isFalse();
            assertThat(multiSizes).as("b and c in one multi").containsExactly(2);
            for (int i = 0; i < names.size(); i++) {
                Stat node = onlyNode(admin, LockPaths.directory(names.get(i)));
                assertThat(leases.get(i).token()).as(names.get(i) + ": the lease is on the one node made")
                        .isEqualTo(node.getCzxid());
            }
            releaseAndRemovePlaceholders(admin, leases, names);
        }
    }

    /**
     * The first name's create is sent and its answer held while the others start (their creates
     * wait for it), then answered; the leases, in the names' order.
     */
    private List<Lease> acquiredBehindAHeldCreate(ZooKeeperLockClient client, List<String> names) throws Exception {
        CompletableFuture<Void> firstAnswered = new CompletableFuture<>();
        holdingCreate.set(firstAnswered);
        List<CompletableFuture<Lease>> acquires = new ArrayList<>();
        for (String name : names) {
            acquires.add(client.lock(name).acquireAsync(Duration.ofSeconds(10)));
        }
        assertThat(multiSizes).as("the others wait for the first create").isEmpty();
        firstAnswered.complete(null);
        List<Lease> leases = new ArrayList<>();
        for (CompletableFuture<Lease> acquire : acquires) {
            leases.add(acquire.get(10, TimeUnit.SECONDS));
        }
        return leases;
    }

    /**
     * An admin client, with a persistent "placeholder" node in each name's directory: the directory
     * exists, and no container clean-up takes it while it is empty.
     */
    private CuratorFramework adminWithPlaceholders(List<String> names) throws Exception {
        CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(), new RetryNTimes(3, 100));
        admin.start();
        for (String name : names) {
            admin.create().creatingParentContainersIfNeeded().forPath(LockPaths.directory(name) + "/placeholder");
        }
        return admin;
    }

    private static void releaseAndRemovePlaceholders(CuratorFramework admin, List<Lease> leases, List<String> names)
            throws Exception {
        for (Lease lease : leases) {
            assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        }
        for (String name : names) {
            admin.delete().forPath(LockPaths.directory(name) + "/placeholder");
        }
    }

    private long session() throws Exception {
        return losingCurator.get().getZookeeperClient().getZooKeeper().getSessionId();
    }
}
