package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/** The calls each operation sends to etcd, counted by a gRPC interceptor on a real cluster (docs/etcd.md quotes them). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RoundTripsTest {

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));
    private static final CountedCalls CALLS = new CountedCalls();

    private static List<String> callsDuring(Runnable operation) {
        return CALLS.during(operation);
    }

    @Test
    void acquireIsATransactionReleaseADeleteAndRenewalAConfirmedKeepAlive() throws Exception {
        try (Client counted = CALLS.client(cluster.get().endpoints());
             EtcdLockClient locks = EtcdLocks.using(counted)) {
            LockOptions watchdog = LockOptions.watchdog(Duration.ofSeconds(3));
            assertThat(callsDuring(() -> locks.lock("rt:0", watchdog).acquire(Duration.ofSeconds(5)).release()))
                    .as("the client's first acquire of a ttl also grants its session")
                    .containsExactly("LeaseGrant", "Txn", "Txn");
            Lease[] held = new Lease[1];
            // The session was granted (or kept alive, confirmed) less than a third of its ttl ago: its Txn alone.
            assertThat(callsDuring(() -> held[0] = locks.lock("rt:1", watchdog).acquire(Duration.ofSeconds(5))))
                    .as("uncontended acquire").containsExactly("Txn");
            CALLS.clear();
            Thread.sleep(1_500); // a renewal at a third of what the session still grants
            // Each keep-alive is confirmed by a linearizable read in the same raft term (Acquisitions.confirm).
            assertThat(CALLS.calls()).as("renewals").contains("LeaseKeepAlive").containsOnly("LeaseKeepAlive", "Range");
            assertThat(callsDuring(held[0]::release)).as("release: a delete guarded on the holder id").containsExactly("Txn");
            Thread.sleep(1_200); // the renewal's confirmed keep-alive is now more than a third of the ttl old
            assertThat(callsDuring(() -> locks.lock("rt:1", watchdog).acquire(Duration.ofSeconds(5)).release()))
                    .as("an acquire on a session last confirmed more than a third of the ttl ago keeps it alive beside its Txn")
                    .containsExactlyInAnyOrder("Txn", "LeaseKeepAlive", "Range", "Txn");

            assertThat(callsDuring(() -> locks.lock("rt:fixed", LockOptions.fixedLease(Duration.ofSeconds(3)))
                    .acquire(Duration.ofSeconds(5)).release()))
                    .as("a fixed lease: a lease of its own, granted, then revoked")
                    .containsExactly("LeaseGrant", "Txn", "LeaseRevoke");

            Lease holder = locks.lock("rt:2").acquire(Duration.ofSeconds(5));
            try (EtcdLockClient other = EtcdLocks.using(counted)) {
                CALLS.clear();
                var waiting = other.lock("rt:2").acquireAsync(Duration.ofSeconds(5));
                // Until the waiter has placed its key (its Txn) and watches its blocker; a fixed 200 ms
                // was not always enough at load 11, and its Txn then fell in the handoff's calls.
                eventually(() -> CALLS.calls().contains("Txn") && CALLS.calls().contains("Watch"),
                        "the waiter placed its key and watches");
                List<String> handoff = callsDuring(() -> {
                    holder.release();
                    waiting.join().release();
                });
                assertThat(handoff).as("a handoff: release, the waiter's watch fires on its one blocker's deletion,"
                        + " one read finds its own key still there; then its release")
                        .containsExactly("Txn", "Range", "Txn");
            }
        }
    }

    @Test
    void leasesOnOneSessionRenewingAtTheirOwnTimesShareTheSessionsKeepAlives() throws Exception {
        try (Client counted = CALLS.client(cluster.get().endpoints());
             EtcdLockClient locks = EtcdLocks.using(counted)) {
            LockOptions watchdog = LockOptions.watchdog(Duration.ofSeconds(3));
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                held.add(locks.lock("rt:many:" + i, watchdog).acquire(Duration.ofSeconds(5)));
                Thread.sleep(60); // each lease renews at an instant of its own
            }
            CALLS.clear();
            Thread.sleep(2_500); // two renewals of every lease, at a third of the 3 s ttl
            List<String> calls = CALLS.calls();
            assertThat(held).as("every renewal succeeded").allMatch(Lease::isValid);
            assertThat(Collections.frequency(calls, "LeaseKeepAlive"))
                    .as("the session is kept alive at most once a third of its ttl (and once more in flight), "
                            + "not once per lease and renewal (12 or more): %s", calls)
                    .isBetween(1, 4);
            assertThat(calls).as("each renewal reads its key, and nothing else is sent")
                    .isSubsetOf("LeaseKeepAlive", "Range", "Txn");
            for (Lease lease : held) {
                lease.release();
            }
        }
    }
}
