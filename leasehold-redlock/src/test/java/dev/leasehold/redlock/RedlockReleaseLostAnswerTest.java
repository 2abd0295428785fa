package dev.leasehold.redlock;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.fault.LostReleaseAnswer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A release every node carried out whose answers were all lost to connection resets (a
 * {@link FaultProxy} per node holds the replies until no node holds the key, then cuts), and the
 * retry {@code release()}'s Javadoc invites after the failure it reports.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockReleaseLostAnswerTest {

    @RegisterExtension
    static final TestServer<RedisNodes> nodes = TestServer.perClass(() -> RedisNodes.start(5));

    /**
     * The retried release's delete finds no key: the engine reads it as the unanswered attempt's
     * doing (ManagedLease's releaseUnanswered) and reports RELEASED, with no lease-lost event, no
     * overrun and no WARN. Reported ALREADY_LOST before, on Redis, etcd and Redlock alike.
     */
    @Test
    void aReleaseRetriedAfterItsAnswersWereLostIsNotReportedAsALoss() throws Exception {
        String name = "lost-release";
        List<FaultProxy> proxies = new ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                proxies.add(FaultProxy.start(nodes.get().get(i).host(), nodes.get().get(i).port()));
            }
            String[] uris = proxies.stream().map(proxy -> "redis://" + proxy.host() + ":" + proxy.port()).toArray(String[]::new);
            try (RedlockLockClient cut = RedlockLocks.builder().uris(uris).nodeTimeout(Duration.ofSeconds(1))
                    .operationTimeout(Duration.ofSeconds(4)).connect()) {
                // Load the scripts first: a held NOSCRIPT reply would stop the EVAL fallback from being sent.
                cut.lock(name + ":warm-up").acquire(Duration.ofSeconds(2)).release();
                Lease lease = cut.lock(name, LockOptions.watchdog(Duration.ofSeconds(30))).acquire(Duration.ofSeconds(5));
                LostReleaseAnswer.Outcome outcome = LostReleaseAnswer.release(lease, proxies, () -> nodes.get().holding(name) == 0);
                assertThat(outcome.last()).as("a release every node carried out (%s)", outcome)
                        .isEqualTo(ReleaseStatus.RELEASED);
            }
        } finally {
            proxies.forEach(FaultProxy::close);
        }
    }
}
