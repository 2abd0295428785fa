package dev.leasehold.etcd;

import dev.leasehold.LockKind;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The renewals of the leases on one session, driven through the protocol as the engine drives it
 * (a batch of {@code renew} calls, then {@code flushRenewals}), counted by a gRPC interceptor on a
 * real cluster: the session is kept alive once per batch, not once per lease, and the keys of the
 * batch are checked by one read, which also confirms that keep-alive in its raft term.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionRenewalsTest {

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));
    private static final CountedCalls CALLS = new CountedCalls();
    private static final Duration TTL = Duration.ofSeconds(3);
    private static final int LEASES = 6;
    private static final List<Integer> ALL = List.of(0, 1, 2, 3, 4, 5);

    @Test
    void aBatchOfRenewalsOnOneSessionIsOneKeepAliveAndOneReadOfTheirKeys() throws Exception {
        try (Client counted = CALLS.client(cluster.get().endpoints())) {
            Sessions sessions = new Sessions(counted);
            Acquisitions acquisitions = new Acquisitions(counted, sessions, Duration.ofSeconds(3));
            EtcdQueueProtocol protocol = new EtcdQueueProtocol(counted, acquisitions, "renewals/", LockKind.MUTEX,
                    true, "etcd");
            List<String> holders = new ArrayList<>();
            for (int i = 0; i < LEASES; i++) {
                String holder = "holder-" + i;
                Attempt attempt = protocol.tryAcquire(new AcquireRequest("name-" + i, holder, TTL, false,
                        System.nanoTime())).get(5, TimeUnit.SECONDS);
                assertThat(attempt).isInstanceOf(Attempt.Acquired.class);
                holders.add(holder);
            }
            Thread.sleep(1_100); // the session's grant is now more than a third of the ttl old

            CALLS.clear();
            assertThat(renew(protocol, holders, ALL)).as("every key still stands").containsOnly(true);
            assertThat(CALLS.calls()).as("one keep-alive of the session, then one read of the six keys")
                    .containsExactly("LeaseKeepAlive", "Txn");
            long confirmedAt = System.nanoTime();
            assertThat(protocol.grantedFor(holders.get(0), confirmedAt))
                    .as("the session is now known to live its ttl from that keep-alive's send")
                    .isGreaterThan(TTL.minus(Duration.ofMillis(500)));

            CALLS.clear();
            assertThat(renew(protocol, holders, ALL)).containsOnly(true);
            assertThat(CALLS.calls()).as("the session was confirmed less than a third of the ttl ago: "
                    + "the keys are read, the session is not kept alive again").containsExactly("Txn");

            counted.getKVClient().delete(ByteSequence.from("renewals/name-2/", StandardCharsets.UTF_8),
                    DeleteOption.builder().isPrefix(true).build()).get(5, TimeUnit.SECONDS);
            List<Boolean> afterBreak = renew(protocol, holders, ALL);
            assertThat(afterBreak.get(2)).as("the renewal of the deleted key (a broken lock) fails").isFalse();
            assertThat(afterBreak).as("the others on the session stay").containsOnly(true, false)
                    .filteredOn(renewed -> renewed).hasSize(LEASES - 1);

            CALLS.clear();
            assertThat(renew(protocol, holders, List.of(1))).containsOnly(true);
            assertThat(CALLS.calls()).as("a lone renewal reads its key alone").containsExactly("Range");

            for (int i = 0; i < LEASES; i++) {
                protocol.release("name-" + i, holders.get(i)).get(5, TimeUnit.SECONDS);
            }
            assertThat(counted.getKVClient().get(ByteSequence.from("renewals/", StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(5, TimeUnit.SECONDS).getCount())
                    .isZero();
            sessions.close(3_000);
        }
    }

    /** One batch, as the engine's renewal thread sends it: the renewals of the leases {@code which}, then one flush. */
    private static List<Boolean> renew(EtcdQueueProtocol protocol, List<String> holders, List<Integer> which)
            throws Exception {
        List<CompletableFuture<Boolean>> renewals = new ArrayList<>();
        for (int i : which) {
            renewals.add(protocol.renew("name-" + i, holders.get(i), TTL));
        }
        protocol.flushRenewals();
        List<Boolean> renewed = new ArrayList<>();
        for (CompletableFuture<Boolean> renewal : renewals) {
            renewed.add(renewal.get(5, TimeUnit.SECONDS));
        }
        return renewed;
    }
}
