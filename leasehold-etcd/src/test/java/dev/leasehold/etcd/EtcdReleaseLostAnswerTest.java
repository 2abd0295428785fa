package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.fault.LostReleaseAnswer;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A release the member carried out whose answer was lost to a connection reset (a
 * {@link FaultProxy} holds the replies until the key is gone, then cuts), and the retry
 * {@code release()}'s Javadoc invites after the failure it reports.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdReleaseLostAnswerTest {

    private static final String PREFIX = "release-lost/";

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    /**
     * The retried release's delete finds no key: the engine reads it as the unanswered attempt's
     * doing (ManagedLease's releaseUnanswered) and reports RELEASED, with no lease-lost event, no
     * overrun and no WARN. Reported ALREADY_LOST before, on Redis, etcd and Redlock alike.
     */
    @Test
    void aReleaseRetriedAfterItsAnswerWasLostIsNotReportedAsALoss() throws Exception {
        try (FaultProxy proxy = FaultProxy.start("127.0.0.1", cluster.get().clientPort(0));
             EtcdLockClient cut = EtcdLocks.builder().endpoints("http://" + proxy.host() + ":" + proxy.port())
                     .keyPrefix(PREFIX).operationTimeout(Duration.ofSeconds(2)).connect();
             Client direct = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Lease lease = cut.lock("order", LockOptions.watchdog(Duration.ofSeconds(30))).acquire(Duration.ofSeconds(5));
            assertThat(keys(direct)).as("the lease's key").isEqualTo(1);
            LostReleaseAnswer.Outcome outcome = LostReleaseAnswer.release(lease, List.of(proxy), () -> keys(direct) == 0);
            assertThat(outcome.last()).as("a release the member carried out (%s)", outcome).isEqualTo(ReleaseStatus.RELEASED);
        }
    }

    private static long keys(Client client) {
        try {
            return client.getKVClient().get(ByteSequence.from(PREFIX, StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(10, TimeUnit.SECONDS).getCount();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
