package dev.leasehold.zookeeper;

import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockOptions;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.testkit.junit.Eventually;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The kinds beyond the mutex, their shared queue and tokens, inspect, and a create whose reply is lost. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperKindsTest {

    private final List<ZooKeeperLockClient> clients = new ArrayList<>();

    private ZooKeeperLockClient client() {
        ZooKeeperLockClient client = TestClients.connect(Ensemble.shared());
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeClients() {
        clients.forEach(ZooKeeperLockClient::close);
        Ensemble.shared().proxies().forEach(proxy -> proxy.pass());
    }

    private static String name(String what) {
        return "kinds:" + what + ":" + System.nanoTime();
    }

    @Test
    void readersShareAndAWaitingWriterBlocksNewReaders() throws Exception {
        String name = name("rw");
        DistributedReadWriteLock a = client().readWriteLock(name);
        DistributedReadWriteLock b = client().readWriteLock(name);
        DistributedReadWriteLock c = client().readWriteLock(name);
        Lease first = a.readLock().acquire(Duration.ofSeconds(5));
        Lease second = b.readLock().acquire(Duration.ofSeconds(5));
        assertThat(c.writeLock().tryAcquire(Duration.ofMillis(200))).as("readers exclude the writer").isEmpty();

        CompletableFuture<Lease> writer = c.writeLock().acquireAsync(Duration.ofSeconds(10));
        awaitWaiters(client(), name, 1);
        assertThat(a.readLock().tryAcquire(Duration.ofMillis(300))).as("a waiting writer blocks new readers").isEmpty();

        first.release();
        assertThat(writer).as("one reader still holds").isNotDone();
        second.release();
        Lease written = writer.get(5, TimeUnit.SECONDS);
        assertThat(written.token()).isGreaterThan(first.token()).isGreaterThan(second.token());
        assertThat(b.readLock().tryAcquire(Duration.ZERO)).as("the writer excludes readers").isEmpty();
        written.release();
        try (Lease reader = b.readLock().acquire(Duration.ofSeconds(5))) {
            assertThat(reader.token()).isGreaterThan(written.token());
        }
    }

    @Test
    void aSemaphoreAdmitsItsPermitsAndRefusesAnotherNumber() throws Exception {
        String name = name("semaphore");
        DistributedSemaphore two = client().semaphore(name, 2);
        DistributedSemaphore other = client().semaphore(name, 2);
        Lease one = two.acquire(Duration.ofSeconds(5));
        Lease another = other.acquire(Duration.ofSeconds(5));
        assertThat(two.available()).isZero();
        assertThat(other.tryAcquire(Duration.ofMillis(200))).isEmpty();
        assertThatThrownBy(() -> client().semaphore(name, 3).acquire(Duration.ofSeconds(1)))
                .isInstanceOf(PermitsMismatchException.class).hasMessageContaining("held with 2 permits");
        assertThat(two.available()).as("the refused acquire left no node behind (else: a mismatch)").isZero();
        one.release();
        assertThat(two.available()).isEqualTo(1);
        try (Lease third = other.acquire(Duration.ofSeconds(5))) {
            assertThat(third.token()).isGreaterThan(another.token()).isGreaterThan(one.token());
        }
        another.release();
    }

    @Test
    void aFairLockGrantsInTheEnsemblesArrivalOrderAcrossClients() throws Exception {
        String name = name("fair");
        ZooKeeperLockClient observer = client();
        Lease holder = client().fairLock(name).acquire(Duration.ofSeconds(5));
        List<Integer> granted = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int arrival = i;
            waiters.add(client().fairLock(name).acquireAsync(Duration.ofSeconds(20)).thenAccept(lease -> {
                granted.add(arrival);
                lease.release();
            }));
            awaitWaiters(observer, name, i + 1);
        }
        holder.release();
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertThat(granted).containsExactly(0, 1, 2, 3);
    }

    @Test
    void anExclusiveLeaseExcludesTheLockFamilyAndTokensIncreaseAcrossKinds() throws Exception {
        String name = name("mixed");
        ZooKeeperLockClient a = client();
        ZooKeeperLockClient b = client();
        try (Lease exclusive = a.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(b.readWriteLock(name).readLock().tryAcquire(Duration.ofMillis(100))).isEmpty();
            assertThat(b.fairLock(name).tryAcquire(Duration.ofMillis(100))).isEmpty();
            assertThat(b.readWriteLock(name).writeLock().tryAcquire(Duration.ofMillis(100))).isEmpty();
            // The semaphore family does not exclude the lock family (as on Redis), yet draws from the same order.
            try (Lease permit = b.semaphore(name, 5).tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
                assertThat(permit.token()).isGreaterThan(exclusive.token());
            }
        }
        long previous = Long.MIN_VALUE;
        for (int round = 0; round < 3; round++) {
            for (Supplier<Lease> acquire : List.<Supplier<Lease>>of(
                    () -> b.readWriteLock(name).readLock().acquire(Duration.ofSeconds(5)),
                    () -> a.semaphore(name, 2).acquire(Duration.ofSeconds(5)),
                    () -> b.lock(name).acquire(Duration.ofSeconds(5)),
                    () -> a.fairLock(name).acquire(Duration.ofSeconds(5)),
                    () -> b.readWriteLock(name).writeLock().acquire(Duration.ofSeconds(5)))) {
                Lease lease = acquire.get();
                assertThat(lease.token()).isGreaterThan(previous);
                previous = lease.token();
                lease.release();
            }
        }
    }

    @Test
    void inspectShowsTheQueueWithRedactedHolders() throws Exception {
        String name = name("inspect");
        ZooKeeperLockClient a = client();
        assertThat(a.queue(name).entries()).isEmpty();
        Lease read = a.readWriteLock(name).readLock().acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> write = client().readWriteLock(name).writeLock().acquireAsync(Duration.ofSeconds(10));
        awaitWaiters(a, name, 1);
        LockQueue queue = a.queue(name);
        assertThat(queue.entries()).extracting(LockQueue.Entry::kind).containsExactly("read", "exclusive");
        assertThat(queue.holders()).extracting(LockQueue.Entry::kind).containsExactly("read");
        assertThat(queue.entries()).allSatisfy(entry -> assertThat(entry.holder()).hasSize(7).endsWith("…"));
        read.release();
        write.get(5, TimeUnit.SECONDS).release();
        assertThat(a.queue(name).entries()).isEmpty();
        assertThatThrownBy(() -> a.queue(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lock name");
    }

    @Test
    void anAcquireWhoseReplyIsLostLeavesNoNodeBehind() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = name("lost-reply");
        ZooKeeperLockClient stalled = ZooKeeperLocks.builder().connectString(ensemble.connectString())
                .sessionTimeout(TestClients.SESSION_TIMEOUT).operationTimeout(Duration.ofMillis(400)).build();
        clients.add(stalled);
        ensemble.proxies().forEach(proxy -> proxy.holdReplies());
        // The create reaches the servers, its reply does not come back in time.
        assertThatThrownBy(() -> stalled.lock(name).acquire(Duration.ofMillis(300))).isInstanceOf(LeaseholdException.class);
        Thread.sleep(300);
        ensemble.proxies().forEach(proxy -> proxy.releaseReplies());
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(), new RetryOneTime(100))) {
            admin.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            // No directory at all is fine too: the create never reached it, or the empty container was removed.
            while (admin.checkExists().forPath(LockPaths.directory(name)) != null
                    && !admin.getChildren().forPath(LockPaths.directory(name)).isEmpty()) {
                assertThat(System.nanoTime()).as("the abandoned acquisition's node is deleted").isLessThan(deadline);
                Thread.sleep(20);
            }
        }
        try (Lease next = client().lock(name).acquire(Duration.ofSeconds(1))) {
            assertThat(next.isValid()).isTrue();
        }
    }

    /**
     * The create is sent on the session's handle itself (not through Curator's protected mode): when
     * its answer is lost with the connection after the servers made the node, the acquisition finds
     * that node by the holder id in its name instead of queueing a second node behind it, which would
     * wait for the first (a live node of its own session) until the wait ran out.
     */
    @Test
    void aCreateWhoseAnswerIsLostWithTheConnectionIsFoundByItsHolderId() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = name("lost-answer");
        ZooKeeperLockClient client = client();
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(), new RetryOneTime(100))) {
            admin.start();
            CompletableFuture<Lease> acquired = acquireWithTheAnswerHeld(ensemble, admin, client, name);
            // The servers made the node; its answer dies with the connection.
            cutAndReconnect(ensemble);
            try (Lease lease = acquired.get(10, TimeUnit.SECONDS)) {
                assertHeldOnItsOneNode(admin, name, lease);
            }
            admin.delete().forPath(LockPaths.directory(name) + "/placeholder");
        }
    }

    /**
     * An acquisition cancelled while its direct create is on the servers, whose answer then dies
     * with the connection: the node the servers made is found and deleted (by the lost create's
     * search or by the abandon), and the lock is free.
     */
    @Test
    void anAcquireCancelledWhileItsCreatesAnswerIsLostLeavesTheLockFree() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = name("cancel-lost-answer");
        ZooKeeperLockClient client = client();
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(), new RetryOneTime(100))) {
            admin.start();
            CompletableFuture<Lease> acquired = acquireWithTheAnswerHeld(ensemble, admin, client, name);
            assertThat(acquired.cancel(true)).isTrue();
            cutAndReconnect(ensemble);
            awaitNodes(admin, name, count -> count <= 1, "the cancelled acquisition's node is deleted", 10);
            try (Lease next = client().lock(name).acquire(Duration.ofSeconds(1))) {
                assertThat(next.isValid()).isTrue();
            }
            admin.delete().forPath(LockPaths.directory(name) + "/placeholder");
        }
    }

    /**
     * An acquisition cancelled while its create's answer is lost, then a connection down for longer
     * than the lease's ttl (the engine's clean-up retries end) but shorter than the session timeout:
     * the node the servers made is still its live session's, so it is deleted when the connection
     * comes back, and the lock is free to another client.
     */
    @Test
    void anAbandonedNodeIsDeletedWhenTheConnectionComesBackAfterItsTtl() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = name("abandoned-outage");
        ZooKeeperLockClient client = outlivingClient(ensemble);
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(), new RetryOneTime(100))) {
            admin.start();
            admin.create().creatingParentContainersIfNeeded().forPath(LockPaths.directory(name) + "/placeholder");
            ensemble.proxies().forEach(proxy -> proxy.holdReplies());
            CompletableFuture<Lease> acquired = client.lock(name, LockOptions.watchdog(Duration.ofMillis(500)))
                    .acquireAsync(Duration.ofSeconds(10));
            awaitNodes(admin, name, count -> count >= 2, "the create reaches the servers", 5);
            assertThat(acquired.cancel(true)).isTrue();
            ensemble.proxies().forEach(proxy -> {
                proxy.refuse(true);
                proxy.cutAll();
            });
            Thread.sleep(5_000); // past the ttl and the clean-up's calls' retries, well within the session
            assertThat(admin.getChildren().forPath(LockPaths.directory(name))).as("the node outlives the ttl")
                    .hasSize(2);
            ensemble.proxies().forEach(proxy -> {
                proxy.refuse(false);
                proxy.pass();
            });
            awaitNodes(admin, name, count -> count <= 1, "the abandoned node is deleted after the reconnection", 10);
            try (Lease lease = client().lock(name).acquire(Duration.ofSeconds(1))) {
                assertThat(lease.isValid()).isTrue();
            }
            admin.delete().forPath(LockPaths.directory(name) + "/placeholder");
        }
    }

    /**
     * A release that fails because the connection is down, and is not tried again: the lease's node
     * is an ephemeral node of a session that outlives the outage, so the client deletes it once the
     * lease's ttl has passed, as it would an unrenewed lease's, and the lock is free after the outage.
     */
    @Test
    void aReleaseThatFailsInAnOutageStillFreesTheLockByItsTtl() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = name("failed-release");
        ZooKeeperLockClient client = outlivingClient(ensemble);
        Lease lease = client.lock(name, LockOptions.watchdog(Duration.ofMillis(500))).acquire(Duration.ofSeconds(5));
        ensemble.proxies().forEach(proxy -> {
            proxy.refuse(true);
            proxy.cutAll();
        });
        assertThatThrownBy(lease::release).isInstanceOf(LeaseholdException.class);
        Thread.sleep(5_000); // past the ttl and the delete's retries, well within the session
        ensemble.proxies().forEach(proxy -> {
            proxy.refuse(false);
            proxy.pass();
        });
        // A client made after the outage: one from before may see its 3 s session expire only now.
        try (Lease taken = client().lock(name).acquire(Duration.ofSeconds(10))) {
            assertThat(taken.isValid()).isTrue();
        }
    }

    /**
     * A create whose answer is lost, and the session expires before the client gets back (the
     * servers deleted the node with it): the acquisition never takes a lease on the vanished node.
     * Either it is granted on a node of its new session (the one node in the directory, its token
     * that node's czxid) or it fails; either way, once it is over, no node of it blocks the lock.
     */
    @Test
    void aCreateWhoseAnswerIsLostWhileTheSessionExpiresNeverHoldsTheVanishedNode() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = name("lost-answer-expired");
        ZooKeeperLockClient client = client();
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(), new RetryOneTime(100))) {
            admin.start();
            CompletableFuture<Lease> acquired = acquireWithTheAnswerHeld(ensemble, admin, client, name);
            ensemble.proxies().forEach(proxy -> {
                proxy.refuse(true);
                proxy.cutAll();
            });
            // The servers expire the session (3 s) and delete its node.
            awaitNodes(admin, name, count -> count <= 1, "the session expires", 10);
            ensemble.proxies().forEach(proxy -> {
                proxy.refuse(false);
                proxy.pass();
            });
            Lease lease = null;
            try {
                lease = acquired.get(15, TimeUnit.SECONDS);
            } catch (ExecutionException failed) {
                assertThat(failed.getCause()).isInstanceOf(LeaseholdException.class);
            }
            if (lease != null) {
                assertHeldOnItsOneNode(admin, name, lease);
                assertThat(lease.isValid()).isTrue();
                lease.release();
            }
            try (Lease next = client().lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(next.isValid()).as("nothing of the acquisition blocks the lock").isTrue();
            }
            admin.delete().forPath(LockPaths.directory(name) + "/placeholder");
        }
    }

    /**
     * Starts {@code client}'s acquisition of {@code name} (a placeholder keeps its directory) with
     * the servers' replies held, and returns once the servers made its node.
     */
    private static CompletableFuture<Lease> acquireWithTheAnswerHeld(Ensemble ensemble, CuratorFramework admin,
                                                                     ZooKeeperLockClient client, String name) throws Exception {
        admin.create().creatingParentContainersIfNeeded().forPath(LockPaths.directory(name) + "/placeholder");
        ensemble.proxies().forEach(proxy -> proxy.holdReplies());
        CompletableFuture<Lease> acquired = client.lock(name).acquireAsync(Duration.ofSeconds(10));
        awaitNodes(admin, name, count -> count >= 2, "the create reaches the servers", 5);
        return acquired;
    }

    /**
     * A client whose session (10 s) outlives a 5 s outage, and whose calls give up waiting for a
     * connection after 500 ms; made after another client has warmed the ensemble up.
     */
    private ZooKeeperLockClient outlivingClient(Ensemble ensemble) {
        client();
        ZooKeeperLockClient client = ZooKeeperLocks.builder().connectString(ensemble.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofMillis(500))
                .operationTimeout(Duration.ofMillis(300)).build();
        clients.add(client);
        return client;
    }

    /** The directory of {@code name} holds the placeholder and one node, which {@code lease} holds with its czxid as token. */
    private static void assertHeldOnItsOneNode(CuratorFramework admin, String name, Lease lease) throws Exception {
        List<String> nodes = new ArrayList<>(admin.getChildren().forPath(LockPaths.directory(name)));
        nodes.remove("placeholder");
        assertThat(nodes).as("one node for the acquisition").hasSize(1);
        assertThat(lease.token()).isEqualTo(admin.checkExists()
                .forPath(LockPaths.directory(name) + "/" + nodes.get(0)).getCzxid());
    }

    /** Waits up to {@code seconds} until the number of nodes under {@code name}'s directory satisfies {@code wanted}. */
    private static void awaitNodes(CuratorFramework admin, String name, IntPredicate wanted, String what, int seconds) {
        Eventually.eventually(() -> {
            try {
                return wanted.test(admin.getChildren().forPath(LockPaths.directory(name)).size());
            } catch (Exception e) {
                throw new IllegalStateException("cannot list " + LockPaths.directory(name), e);
            }
        }, what, Duration.ofSeconds(seconds));
    }

    /** Drops every connection (and the replies held on it), then lets the clients connect again. */
    private static void cutAndReconnect(Ensemble ensemble) {
        ensemble.proxies().forEach(proxy -> {
            proxy.cutAll();
            proxy.pass();
        });
    }

    @Test
    void namesThatLookLikePathsAreDataAndNeverShareALock() {
        ZooKeeperLockClient a = client();
        ZooKeeperLockClient b = client();
        String base = name("path");
        List<String> names = List.of(base + "/child", base + "%2Fchild", base + "/..", "..", ".", base + "/\u00fc",
                base + "\u0001", base + " spaced");
        List<Lease> held = new ArrayList<>();
        for (String name : names) {
            held.add(a.lock(name).acquire(Duration.ofSeconds(5)));
        }
        for (String name : names) {
            assertThat(b.lock(name).tryAcquire(Duration.ZERO)).as("'%s' is held", name).isEmpty();
            assertThat(b.queue(name).holders()).as("'%s' has its own queue", name).hasSize(1);
        }
        held.forEach(Lease::release);
        for (String name : names) {
            b.lock(name).acquire(Duration.ofSeconds(5)).release();
        }
    }

    /** The round trips docs/zookeeper.md quotes: two per uncontended acquire, one per release. */
    @Test
    void anUncontendedAcquireCostsTwoRequestsAndAReleaseOne() {
        Ensemble ensemble = Ensemble.shared();
        ZooKeeperLockClient client = client();
        String name = name("cost");
        client.lock(name).acquire(Duration.ofSeconds(5)).release();
        int cycles = 50;
        long before = ensemble.requestsReceived();
        for (int i = 0; i < cycles; i++) {
            client.lock(name).acquire(Duration.ofSeconds(5)).release();
        }
        // The srvr command of each server counts itself too: three per reading.
        double perCycle = (ensemble.requestsReceived() - before - 3) / (double) cycles;
        System.out.printf("requests per uncontended acquire + release: %.2f%n", perCycle);
        assertThat(perCycle).isBetween(3.0, 3.2);
    }

    private static void awaitWaiters(ZooKeeperLockClient client, String name, long waiters) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.queue(name).waiters() < waiters) {
            assertThat(System.nanoTime()).as("%d waiter(s) queued on %s", waiters, name).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
