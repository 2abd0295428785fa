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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One token order per name across kinds (issue 19, item 7): grants follow the queue's creation
 * order (core's {@code QueueRule}: an entry is granted only once every entry created before it is),
 * so no lease is granted before an older entry of any kind, and a lease's token exceeds every token
 * granted before it. Today's failure was a read lease granted at once behind a waiting permit, with
 * a higher token than the permit granted after it.
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
     * behind it. That lease must not be granted while the permit created before it still waits (it
     * would hold a higher token than the permit granted after it, and a guard that admitted its
     * write would refuse the permit's). Once the holder releases, both are granted, the permit's
     * token lower, and the guard admits their writes in that order.
     */
    private void assertLaterGrantHasHigherToken(String kind, Acquire other) throws Exception {
        String name = "order:" + kind + ":" + System.nanoTime();
        ZooKeeperLockClient a = client();
        ZooKeeperLockClient b = client();
        ZooKeeperLockClient c = client();
        Lease first = a.semaphore(name, 1).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> permit = b.semaphore(name, 1).acquireAsync(Duration.ofSeconds(20));
        awaitQueued(a, name, 2);
        CompletableFuture<Lease> later = other.start(c, name);
        awaitQueued(a, name, 3);
        Thread.sleep(300);
        boolean grantedBeforeThePermit = later.isDone();
        if (grantedBeforeThePermit) {
            Lease early = later.get();
            System.out.printf("%s granted (token %d) while the permit queued before it waited%n", kind, early.token());
        }
        first.release();
        Lease permitLease = permit.get(20, TimeUnit.SECONDS);
        Lease otherLease = later.get(20, TimeUnit.SECONDS);
        System.out.printf("%s: permit token %d, %s token %d%n", kind, permitLease.token(), kind, otherLease.token());
        assertThat(grantedBeforeThePermit).as("the %s was granted while a permit created before it waited", kind)
                .isFalse();
        assertThat(otherLease.token()).as("the %s's token, granted with or after the permit", kind)
                .isGreaterThan(permitLease.token());
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        guard.admit("resource", permitLease.token(), () -> "the permit's write");
        guard.admit("resource", otherLease.token(), () -> "the " + kind + "'s write");
        permitLease.release();
        otherLease.release();
    }

    private static void awaitQueued(ZooKeeperLockClient client, String name, int entries) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.queue(name).entries().size() < entries) {
            assertThat(System.nanoTime()).as("%d entries queued on %s", entries, name).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
