package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.fault.LostReleaseAnswer;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A release the server carried out whose reply was lost to a connection reset: the first
 * {@code release()} cannot know and fails ({@link dev.leasehold.LockUnavailableException}, "the call
 * may be retried"); the retry its Javadoc invites finds the key gone.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisReleaseLostAnswerTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    /**
     * The retried release's delete finds no key: the engine reads it as the unanswered attempt's
     * doing (ManagedLease's releaseUnanswered) and reports RELEASED, with no lease-lost event, no
     * overrun and no WARN. Reported ALREADY_LOST before, on Redis, etcd and Redlock alike.
     */
    @Test
    void aReleaseRetriedAfterItsReplyWasLostIsNotReportedAsALoss() throws Exception {
        String name = "lost-release";
        RedisClient raw = RedisClient.create(server.get().uri());
        try (FaultProxy proxy = FaultProxy.start(server.get().host(), server.get().port());
             RedisLockClient cut = RedisLocks.builder().uri("redis://" + proxy.host() + ":" + proxy.port())
                     .operationTimeout(Duration.ofSeconds(2)).connect();
             StatefulRedisConnection<String, String> direct = raw.connect()) {
            // Load the scripts first: a held NOSCRIPT reply would stop the EVAL fallback from being sent.
            cut.lock(name + ":warm-up").acquire(Duration.ofSeconds(2)).release();
            Lease lease = cut.lock(name, LockOptions.watchdog(Duration.ofSeconds(30))).acquire(Duration.ofSeconds(2));
            LostReleaseAnswer.Outcome outcome = LostReleaseAnswer.release(lease, List.of(proxy), () -> direct.sync().exists(name) == 0);
            assertThat(outcome.last()).as("a release the server carried out (%s)", outcome).isEqualTo(ReleaseStatus.RELEASED);
        } finally {
            raw.shutdown();
        }
    }
}
