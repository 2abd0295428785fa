package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Defect 7 of issue 19: one token order per name across every kind (/work/notes/QUEUE_RULE.md). A
 * permit that queued before a mutex, a write lease or a read lease of the same name must be granted
 * before it, so the later lease's token exceeds every token granted before it, whatever the kind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdCrossKindOrderTest {

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));
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

    private EtcdLockClient client() {
        EtcdLockClient client = EtcdLocks.connect(cluster.get().endpoints());
        resources.add(client);
        return client;
    }

    @Test
    void aMutexAfterAQueuedPermitIsGrantedAfterItWithAGreaterToken() throws Exception {
        grantsFollowCreationOrder("order:mutex", client -> client.lock("order:mutex"));
    }

    @Test
    void aReadLeaseAfterAQueuedPermitIsGrantedAfterItWithAGreaterToken() throws Exception {
        grantsFollowCreationOrder("order:read", client -> client.readWriteLock("order:read").readLock());
    }

    @Test
    void aWriteLeaseAfterAQueuedPermitIsGrantedAfterItWithAGreaterToken() throws Exception {
        grantsFollowCreationOrder("order:write", client -> client.readWriteLock("order:write").writeLock());
    }

    @Test
    void aPermitAfterAQueuedMutexIsGrantedAfterItWithAGreaterToken() throws Exception {
        EtcdLockClient holder = client();
        Lease held = holder.lock("order:permit").acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> mutex = client().lock("order:permit").acquireAsync(Duration.ofSeconds(20));
        awaitKeys("order:permit", 2);
        CompletableFuture<Lease> permit = client().semaphore("order:permit", 1).acquireAsync(Duration.ofSeconds(20));
        awaitKeys("order:permit", 3);
        Thread.sleep(300);
        assertThat(permit).as("a permit queued behind a waiting mutex waits for it").isNotDone();

        held.release();
        Lease mutexLease = mutex.get(10, TimeUnit.SECONDS);
        Lease permitLease = permit.get(10, TimeUnit.SECONDS);
        assertThat(permitLease.token()).isGreaterThan(mutexLease.token()).isGreaterThan(held.token());
        mutexLease.release();
        permitLease.release();
    }

    @Test
    void familiesStillShareANameWhenNothingWaits() throws Exception {
        try (Lease mutex = client().lock("order:share").acquire(Duration.ofSeconds(5));
             Lease permit = client().semaphore("order:share", 1).acquire(Duration.ofSeconds(5))) {
            assertThat(permit.token()).isGreaterThan(mutex.token());
        }
    }

    /**
     * A holds the only permit, B queues for a permit, then C asks for {@code later}: C must wait for
     * B (before the fix it was granted at once, and B later got a lower token).
     */
    private void grantsFollowCreationOrder(String name, Function<EtcdLockClient, DistributedLock> later) throws Exception {
        EtcdLockClient first = client();
        DistributedSemaphore semaphore = first.semaphore(name, 1);
        Lease held = semaphore.acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> queuedPermit = client().semaphore(name, 1).acquireAsync(Duration.ofSeconds(20));
        awaitKeys(name, 2);
        CompletableFuture<Lease> other = later.apply(client()).acquireAsync(Duration.ofSeconds(20));
        awaitKeys(name, 3);
        Thread.sleep(300);
        assertThat(other).as("a lease asked for after a queued permit waits for that permit").isNotDone();

        held.release();
        Lease permit = queuedPermit.get(10, TimeUnit.SECONDS);
        Lease otherLease = other.get(10, TimeUnit.SECONDS);
        assertThat(otherLease.token()).isGreaterThan(permit.token()).isGreaterThan(held.token());
        otherLease.release();
        permit.release();
    }

    /** Waits until the name's queue holds {@code keys} keys (an acquisition's key is in etcd). */
    private static void awaitKeys(String name, int keys) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (countKeys(name) < keys) {
            assertThat(System.nanoTime() - deadline).as("%d keys queued on %s", keys, name).isNegative();
            Thread.sleep(20);
        }
    }

    private static long countKeys(String name) throws Exception {
        return admin.getKVClient().get(ByteSequence.from(EtcdLocks.DEFAULT_KEY_PREFIX + name + "/", StandardCharsets.UTF_8),
                GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(5, TimeUnit.SECONDS).getCount();
    }
}
