package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.launcher.FreePorts;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.TestServer;
import dev.leasehold.testkit.meters.MeterChecks;
import dev.leasehold.testkit.meters.MeterReadings;
import dev.leasehold.testkit.meters.WithoutMicrometer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** etcd-specific behaviour, read off a real three-member cluster: keys, retries, kinds, bad input. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdLockTest {

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(3));
    private static Client admin;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        admin = Client.builder().endpoints(cluster.get().endpoints().split(",")).build();
    }

    @AfterAll
    static void stopCluster() {
        admin.close();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private EtcdLockClient client() {
        return track(EtcdLocks.connect(cluster.get().endpoints()));
    }

    /** The keys of lock {@code name}'s queue under the default prefix, oldest first. */
    private static List<KeyValue> queue(String name) throws Exception {
        return admin.getKVClient().get(bytes(EtcdLocks.DEFAULT_KEY_PREFIX + name + "/"),
                GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                        .withSortOrder(GetOption.SortOrder.ASCEND).build()).get(5, TimeUnit.SECONDS).getKvs();
    }

    /** The number of live etcd leases, from the cluster's gateway ({@code LeaseLeases}, which jetcd does not offer). */
    private static int liveEtcdLeases() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(cluster.get().endpoints().split(",")[0] + "/v3/lease/leases"))
                        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().split("\"ID\"", -1).length - 1;
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @Test
    void theTokenIsTheCreateRevisionOfTheHoldersKeyWhichGoesWithTheRelease() throws Exception {
        try (Lease lease = client().lock("order:1").acquire(Duration.ofSeconds(5))) {
            List<KeyValue> keys = queue("order:1");
            assertThat(keys).hasSize(1);
            assertThat(keys.get(0).getCreateRevision()).isEqualTo(lease.token());
            assertThat(keys.get(0).getLease()).as("attached to an etcd lease").isNotZero();
            assertThat(keys.get(0).getKey().toString(StandardCharsets.UTF_8)).startsWith("leasehold/order:1/w-");
        }
        assertThat(queue("order:1")).isEmpty();
    }

    /**
     * Two extensions in flight at once each move the key to a longer etcd lease: one of them must not
     * be left behind, kept alive by the renewals while the key expires with the other.
     */
    @Test
    void concurrentExtensionsLeaveOneEtcdLeaseTheKeysAndTheLongest() throws Exception {
        EtcdLockClient locks = client();
        // The client's session lease of a 2 s ttl stands from now on; an extended key moves off it.
        locks.lock("extend:session", LockOptions.watchdog(Duration.ofSeconds(2))).acquire(Duration.ofSeconds(5)).release();
        int before = liveEtcdLeases();
        try (Lease lease = locks.lock("extend:race", LockOptions.watchdog(Duration.ofSeconds(2)))
                .acquire(Duration.ofSeconds(5))) {
            CompletableFuture.allOf(lease.extendAsync(Duration.ofSeconds(30)), lease.extendAsync(Duration.ofSeconds(40)))
                    .get(5, TimeUnit.SECONDS);
            long keyLease = queue("extend:race").get(0).getLease();
            assertThat(admin.getLeaseClient().timeToLive(keyLease, LeaseOption.DEFAULT)
                    .get(5, TimeUnit.SECONDS).getGrantedTTL()).isEqualTo(40);
            assertThat(liveEtcdLeases()).as("live etcd leases: the key's only").isEqualTo(before + 1);
        }
    }

    @Test
    void namesWithSlashesNeverShareAQueue() throws Exception {
        EtcdLockClient locks = client();
        try (Lease parent = locks.lock("a").acquire(Duration.ofSeconds(5));
             Lease child = locks.lock("a/w").acquire(Duration.ofSeconds(5))) {
            assertThat(parent.isValid()).isTrue();
            assertThat(child.isValid()).isTrue();
            assertThat(queue("a")).hasSize(1);
        }
    }

    @Test
    void aRetriedAcquireFindsItsOwnKeyAndNeverCreatesASecond() throws Exception {
        FaultProxy proxy = track(FaultProxy.start("127.0.0.1", cluster.get().clientPort(cluster.get().leader())));
        EtcdLockClient locks = track(EtcdLocks.builder().endpoints("http://" + proxy.host() + ":" + proxy.port())
                .operationTimeout(Duration.ofSeconds(10)).connect());
        DistributedLock lock = locks.lock("retry:1");
        lock.acquire(Duration.ofSeconds(5)).release(); // the connection is up and warm

        // Every chunk takes 400 ms each way: the transaction is applied 400 ms before its reply arrives.
        proxy.latency(Duration.ofMillis(400));
        CompletableFuture<Lease> pending = lock.acquireAsync(Duration.ofSeconds(30));
        awaitTrue(() -> !queue("retry:1").isEmpty());
        proxy.blackhole(); // the reply on its way is dropped
        assertThat(pending).as("the transaction's reply had not arrived").isNotDone();
        long created = queue("retry:1").get(0).getCreateRevision();

        proxy.cutAll(); // the reply is lost with the connection: jetcd sends the transaction again
        proxy.pass();
        try (Lease lease = pending.get(15, TimeUnit.SECONDS)) {
            List<KeyValue> keys = queue("retry:1");
            assertThat(keys).as("one key for the one acquisition").hasSize(1);
            assertThat(lease.token()).as("the key the lost reply created").isEqualTo(created);
        }
        assertThat(queue("retry:1")).isEmpty();
    }

    /**
     * A release that fails because the member cannot be reached, and is not tried again, while
     * another lease of the same ttl keeps the client's session alive: the key must not stay on that
     * session for as long as the client lives; another client gets the lock within about a ttl.
     */
    @Test
    void aReleaseThatFailsWhileTheSessionLivesOnStillFreesTheLockByItsTtl() throws Exception {
        FaultProxy proxy = track(FaultProxy.start("127.0.0.1", cluster.get().clientPort(cluster.get().leader())));
        EtcdLockClient locks = throughAShortTimeout(proxy);
        LockOptions options = LockOptions.watchdog(Duration.ofSeconds(3));
        Lease keeper = locks.lock("failed-release:keeper", options).acquire(Duration.ofSeconds(5));
        Lease released = locks.lock("failed-release:1", options).acquire(Duration.ofSeconds(5));

        proxy.blackhole();
        assertThatThrownBy(released::release).isInstanceOf(LeaseholdException.class);
        proxy.cutAll(); // whatever the release sent dies with the connection
        proxy.pass();

        try (Lease taken = client().lock("failed-release:1").acquire(Duration.ofSeconds(10))) {
            assertThat(taken.token()).isGreaterThan(released.token());
        }
        assertThat(keeper.isValid()).as("the session lived on through the outage").isTrue();
        keeper.release();
    }

    /**
     * A lease lost by its deadline (its renewals could not get through) whose holder never calls
     * release, while a later lease of the same ttl keeps the client's session alive: the key must
     * not stay on that session for as long as the client lives.
     */
    @Test
    void aLeaseLostByItsDeadlineAndNeverReleasedStillFreesTheLockByItsTtl() throws Exception {
        FaultProxy proxy = track(FaultProxy.start("127.0.0.1", cluster.get().clientPort(cluster.get().leader())));
        EtcdLockClient locks = throughAShortTimeout(proxy);
        // 2.1 s: the session lease is 3 s, so it outlives the lease's local deadline by about 0.9 s.
        LockOptions options = LockOptions.watchdog(Duration.ofMillis(2_100));
        Lease abandoned = locks.lock("lost-unreleased:1", options).acquire(Duration.ofSeconds(5));

        proxy.blackhole();
        abandoned.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        proxy.cutAll();
        proxy.pass();
        // Sent with a keep-alive of the session, which the servers have not yet expired.
        Lease keeper = locks.lock("lost-unreleased:keeper", options).acquire(Duration.ofSeconds(5));

        try (Lease taken = client().lock("lost-unreleased:1").acquire(Duration.ofSeconds(10))) {
            assertThat(taken.token()).isGreaterThan(abandoned.token());
        }
        assertThat(keeper.isValid()).isTrue();
        keeper.release();
    }

    /** A client that reaches the cluster through {@code proxy} and gives a call up after 500 ms. */
    private EtcdLockClient throughAShortTimeout(FaultProxy proxy) {
        return track(EtcdLocks.builder().endpoints("http://" + proxy.host() + ":" + proxy.port())
                .operationTimeout(Duration.ofMillis(500)).connect());
    }

    @Test
    void readersShareAWaitingWriterKeepsLaterReadersOutAndTokensGrow() throws Exception {
        DistributedReadWriteLock first = client().readWriteLock("rw:1");
        DistributedReadWriteLock second = client().readWriteLock("rw:1");
        Lease readA = first.readLock().acquire(Duration.ofSeconds(5));
        Lease readB = second.readLock().acquire(Duration.ofSeconds(5));
        assertThat(first.writeLock().tryAcquire(Duration.ZERO)).isEmpty();

        CompletableFuture<Lease> writer = client().readWriteLock("rw:1").writeLock().acquireAsync(Duration.ofSeconds(10));
        awaitTrue(() -> queue("rw:1").size() == 3);
        assertThat(client().readWriteLock("rw:1").readLock().tryAcquire(Duration.ofMillis(300)))
                .as("a reader behind a waiting writer waits").isEmpty();
        readA.release();
        assertThat(writer).isNotDone();
        readB.release();
        try (Lease write = writer.get(5, TimeUnit.SECONDS)) {
            assertThat(write.token()).isGreaterThan(readA.token()).isGreaterThan(readB.token());
            assertThat(first.readLock().tryAcquire(Duration.ZERO)).isEmpty();
        }
        try (Lease read = first.readLock().acquire(Duration.ofSeconds(5))) {
            assertThat(read.token()).isGreaterThan(readB.token());
        }
    }

    @Test
    void theFairLockIsGrantedInArrivalOrderAcrossClients() throws Exception {
        Lease held = client().fairLock("fair:1").acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> early = client().fairLock("fair:1").acquireAsync(Duration.ofSeconds(10));
        awaitTrue(() -> queue("fair:1").size() == 2);
        CompletableFuture<Lease> late = client().fairLock("fair:1").acquireAsync(Duration.ofSeconds(10));
        awaitTrue(() -> queue("fair:1").size() == 3);
        held.release();
        Lease second = early.get(5, TimeUnit.SECONDS);
        assertThat(late).as("the later arrival waits for the earlier one").isNotDone();
        second.release();
        try (Lease third = late.get(5, TimeUnit.SECONDS)) {
            assertThat(third.token()).isGreaterThan(second.token());
        }
    }

    @Test
    void aSemaphoreHoldsItsPermitsAndWakesAWaiterWhenOneIsReleased() throws Exception {
        DistributedSemaphore first = client().semaphore("sem:1", 2);
        Lease a = first.acquire(Duration.ofSeconds(5));
        Lease b = client().semaphore("sem:1", 2).acquire(Duration.ofSeconds(5));
        assertThat(first.available()).isZero();
        DistributedSemaphore third = client().semaphore("sem:1", 2);
        assertThat(third.tryAcquire(Duration.ofMillis(200))).isEmpty();
        CompletableFuture<Lease> waiting = third.acquireAsync(Duration.ofSeconds(10));
        awaitTrue(() -> queue("sem:1").size() == 3);
        long released = System.nanoTime();
        a.release(); // the older permit: the waiter watches the whole queue, not only the key before it
        try (Lease c = waiting.get(5, TimeUnit.SECONDS)) {
            assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken by the watch, not the re-check")
                    .isLessThan(Duration.ofMillis(500));
            assertThat(c.token()).isGreaterThan(b.token()).isGreaterThan(a.token());
        }
        assertThatThrownBy(() -> client().semaphore("sem:1", 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("held with 2 permits");
        DistributedSemaphore early = client().semaphore("sem:2", 3);
        try (Lease held = client().semaphore("sem:2", 1).acquire(Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> early.acquire(Duration.ofSeconds(1))).isInstanceOf(PermitsMismatchException.class);
            awaitTrue(() -> queue("sem:2").size() == 1); // the refused acquire's clean-up removes its key
        }
        b.release();
    }

    @Test
    void usingAGivenClientLeavesItOpen() throws Exception {
        Client given = Client.builder().endpoints(cluster.get().endpoints().split(",")).build();
        try {
            EtcdLockClient locks = EtcdLocks.using(given);
            Lease lease = locks.lock("using:1").acquire(Duration.ofSeconds(5));
            locks.close();
            assertThat(lease.isValid()).isFalse();
            assertThat(given.getKVClient().get(bytes("using")).get(5, TimeUnit.SECONDS)).isNotNull();
            assertThat(queue("using:1")).as("the closed lock client revoked its lease").isEmpty();
        } finally {
            given.close();
        }
    }

    @Test
    void badEndpointsAreRejectedWithWhatToGive() {
        assertThatThrownBy(() -> EtcdLocks.connect(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("endpoints");
        assertThatThrownBy(() -> EtcdLocks.connect(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EtcdLocks.connect("localhost:2379")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://host:port");
        assertThatThrownBy(() -> EtcdLocks.connect("http://root:secret@127.0.0.1:2379"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("user()")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> EtcdLocks.connect("http://127.0.0.1:2379,http://root:s@cret /x@127.0.0.2:2379"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("cret");
        assertThatThrownBy(() -> EtcdLocks.builder().connect()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> EtcdLocks.builder().endpoints(cluster.get().endpoints()).user("u").connect())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("password");
        assertThatThrownBy(() -> EtcdLocks.builder().keyPrefix("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EtcdLocks.builder().operationTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
    }

    @Test
    void anUnreachableClusterIsATypedTimelyErrorThatLeavesNoThread() throws Exception {
        Threads before = Threads.snapshot();
        String nowhere = "http://127.0.0.1:" + FreePorts.find();
        long start = System.nanoTime();
        assertThatThrownBy(() -> EtcdLocks.builder().endpoints(nowhere).operationTimeout(Duration.ofMillis(500)).connect())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(nowhere)
                .satisfies(e -> assertThat(((LockUnavailableException) e).failures())
                        .extracting(NodeFailure::kind).containsAnyOf(NodeFailure.Kind.TIMED_OUT, NodeFailure.Kind.REFUSED));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        before.assertNoNewThreadsWithin(Duration.ofSeconds(10));
    }

    @Test
    void closingTheClientLeavesNoThreadBehind() throws Exception {
        Threads before = Threads.snapshot();
        EtcdLockClient locks = EtcdLocks.connect(cluster.get().endpoints());
        try (Lease lease = locks.lock("threads:1").acquire(Duration.ofSeconds(5))) {
            assertThat(locks.lock("threads:1").tryAcquire(Duration.ofMillis(100))).isEmpty();
        }
        locks.close();
        assertThat(locks.liveAcquisitions()).isZero();
        before.assertNoNewThreadsWithin(Duration.ofSeconds(10));
    }

    interface Check {
        boolean holds() throws Exception;
    }

    static void awaitTrue(Check check) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!check.holds()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(5);
        }
    }

    /** The meters, through {@code EtcdLocks.builder().meterRegistry(registry)}, on this class's cluster. */
    @Nested
    class Meters {

        private static final Duration WAIT = Duration.ofSeconds(5);
        private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        private final MeterReadings meters = new MeterReadings(registry);

        private EtcdLockClient metered() {
            return track(EtcdLocks.builder().endpoints(cluster.get().endpoints()).meterRegistry(registry).connect());
        }

        @Test
        void theBuilderRefusesANullRegistryOrEvents() {
            assertThatThrownBy(() -> EtcdLocks.builder().meterRegistry(null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("registry");
            assertThatThrownBy(() -> EtcdLocks.builder().leaseEvents(null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LeaseEvents.NONE");
        }

        @Test
        void aClientWithoutARegistryWorksWithNoMicrometerOnTheClassPath() throws Exception {
            assertThat(WithoutMicrometer.run(NoMicrometerProbe.class, cluster.get().endpoints()))
                    .startsWith("token ").endsWith("renewed, RELEASED");
        }

        @Test
        void anAcquireAndReleaseMoveTheWaitTheHeldTimerAndTheActiveGauge() {
            MeterChecks.acquireAndReleaseMoveTheMeters(metered(), "meters:held", meters);
        }

        @Test
        void aTimeoutIsCountedAsSuch() {
            MeterChecks.aTimeoutIsCounted(metered(), metered(), "meters:busy", meters);
        }

        @Test
        void eachKindReportsItsOwnTag() {
            MeterChecks.eachKindReportsItsTag(metered(), "meters:", List.of("fair_lock", "read", "write", "semaphore"),
                    meters);
        }

        /**
         * etcd pushes no loss: the engine's renewal is the lease's keep-alive, and a keep-alive that
         * finds the etcd lease gone is a refused renewal.
         */
        @Test
        void aLeaseRevokedOnTheServerIsCountedLostWhenItsKeepAliveFindsItGone() throws Exception {
            Lease lease = metered().lock("meters:revoked", LockOptions.watchdog(Duration.ofSeconds(3))).acquire(WAIT);
            long etcdLease = queue("meters:revoked").get(0).getLease();
            admin.getLeaseClient().revoke(etcdLease).get(5, TimeUnit.SECONDS);
            lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(meters.lost("refused")).isEqualTo(1);
            assertThat(meters.lost("backend")).isZero();
            assertThat(meters.active()).isZero();
        }
    }
}
