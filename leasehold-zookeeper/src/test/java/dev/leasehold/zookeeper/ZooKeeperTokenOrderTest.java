package dev.leasehold.zookeeper;

import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One token order per name across kinds (issue 19, item 7): a lease granted after another has the
 * higher token, whatever the two kinds, so a guard that admitted the earlier grant's write admits
 * the later grant's. Grants follow the queue's creation order ({@code QUEUE_RULE}): an entry is
 * granted only once every entry created before it is.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperTokenOrderTest {

    private final List<ZooKeeperLockClient> clients = new ArrayList<>();

    private ZooKeeperLockClient client() {
        ZooKeeperLockClient client = TestClients.connect(Ensemble.shared());
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeClients() {
        clients.forEach(ZooKeeperLockClient::close);
    }

    @Test
    void aReadLeaseQueuedAfterAWaitingPermitIsGrantedAfterItSoTheGuardAdmitsBoth() throws Exception {
        assertLaterGrantHasHigherToken("read", (client, name) -> client.readWriteLock(name).readLock()
                .acquireAsync(Duration.ofSeconds(20)));
    }

    @Test
    void aMutexQueuedAfterAWaitingPermitIsGrantedAfterItSoTheGuardAdmitsBoth() throws Exception {
        assertLaterGrantHasHigherToken("mutex", (client, name) -> client.lock(name).acquireAsync(Duration.ofSeconds(20)));
    }

    @FunctionalInterface
    private interface Acquire {
        CompletableFuture<Lease> start(ZooKeeperLockClient client, String name);
    }

    /**
     * A one-permit semaphore is held; a second permit queues; then a lease of another kind queues
     * behind it. The holder releases. Whichever of the two was granted first writes first through
     * the guard, the other second: the second, a valid holder granted later, must be admitted.
     */
    private void assertLaterGrantHasHigherToken(String kind, Acquire other) throws Exception {
        String name = "order:" + kind + ":" + System.nanoTime();
        ZooKeeperLockClient a = client();
        ZooKeeperLockClient b = client();
        ZooKeeperLockClient c = client();
        Lease first = a.semaphore(name, 1).acquire(Duration.ofSeconds(5));
        CompletableFuture<Long> permitGranted = new CompletableFuture<>();
        CompletableFuture<Lease> permit = b.semaphore(name, 1).acquireAsync(Duration.ofSeconds(20))
                .whenComplete((lease, error) -> permitGranted.complete(System.nanoTime()));
        awaitQueued(a, name, 2);
        CompletableFuture<Long> otherGranted = new CompletableFuture<>();
        CompletableFuture<Lease> later = other.start(c, name)
                .whenComplete((lease, error) -> otherGranted.complete(System.nanoTime()));
        awaitQueued(a, name, 3);
        Thread.sleep(300);
        first.release();
        Lease permitLease = permit.get(20, TimeUnit.SECONDS);
        Lease otherLease;
        boolean permitReleased = false;
        try {
            otherLease = later.get(3, TimeUnit.SECONDS);
        } catch (TimeoutException excludedByThePermit) {
            // A rule under which the kind excludes permits: it is granted once the permit is gone.
            permitLease.release();
            permitReleased = true;
            otherLease = later.get(20, TimeUnit.SECONDS);
        }
        boolean permitFirst = permitGranted.get() - otherGranted.get() < 0;
        Lease earlier = permitFirst ? permitLease : otherLease;
        Lease newer = permitFirst ? otherLease : permitLease;
        System.out.printf("%s: granted first %s (token %d), then %s (token %d)%n", kind,
                permitFirst ? "the permit" : "the " + kind, earlier.token(), permitFirst ? "the " + kind : "the permit",
                newer.token());
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        guard.admit("resource", earlier.token(), () -> "the earlier grant's write");
        assertThat(newer.isValid()).as("the later grant is a valid holder").isTrue();
        assertThat(newer.token()).as("the later grant's token").isGreaterThan(earlier.token());
        guard.admit("resource", newer.token(), () -> "the later, valid holder's write");
        if (!permitReleased) {
            permitLease.release();
        }
        otherLease.release();
    }

    private static void awaitQueued(ZooKeeperLockClient client, String name, int entries) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.inspect(name).entries().size() < entries) {
            assertThat(System.nanoTime()).as("%d entries queued on %s", entries, name).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
