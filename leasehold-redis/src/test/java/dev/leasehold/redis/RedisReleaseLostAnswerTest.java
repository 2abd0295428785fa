package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A release the server carried out whose reply was lost to a connection reset: the first
 * {@code release()} cannot know and fails ({@link LockUnavailableException}, "the call may be
 * retried"); the retry its Javadoc invites finds the key gone.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisReleaseLostAnswerTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    /**
     * Review finding, not fixed: the retried release's compare-and-delete finds no key, which the
     * engine (ManagedLease.release) reads as 'lost on the server without this client noticing':
     * ALREADY_LOST, a lease-lost event (reason REFUSED), an overrun counted and a WARN, for a lease
     * its first release freed while it was valid. Tried on Redis only; the other backends' caller
     * retries take the same engine path (a new protocol call that cannot know what the earlier one
     * did), so the same is expected there: the PostgreSQL protocol's own retry on a new connection
     * tells the two apart (JdbcLostCommitAnswerTest), a retry by the caller would not.
     */
    @Disabled("review finding: a release retried after its reply was lost reports ALREADY_LOST (see the Javadoc)")
    @Test
    void aReleaseRetriedAfterItsReplyWasLostIsNotReportedAsALoss() throws Exception {
        try (LostReleaseReply lost = new LostReleaseReply("lost-release:retried")) {
            ReleaseStatus first = lost.firstRelease();
            ReleaseStatus status = first != null ? first : lost.retriedRelease();
            assertThat(status).as("a release the server carried out (first call %s)", first)
                    .isEqualTo(ReleaseStatus.RELEASED);
        }
    }

    /** A client behind a proxy holding a 30 s watchdog lease of {@code name}, and another straight to the server. */
    private static final class LostReleaseReply implements AutoCloseable {

        final String name;
        final FaultProxy proxy = FaultProxy.start(server.get().host(), server.get().port());
        final RedisLockClient cut = RedisLocks.builder().uri("redis://" + proxy.host() + ":" + proxy.port())
                .operationTimeout(Duration.ofSeconds(2)).connect();
        final RedisLockClient other = RedisLocks.connect(server.get().uri());
        final RedisClient raw = RedisClient.create(server.get().uri());
        final StatefulRedisConnection<String, String> direct = raw.connect();
        final Lease lease;

        LostReleaseReply(String name) {
            this.name = name;
            // Load the scripts first: a held NOSCRIPT reply would stop the EVAL fallback from being sent.
            cut.lock(name + ":warm-up").acquire(Duration.ofSeconds(2)).release();
            lease = cut.lock(name, LockOptions.watchdog(Duration.ofSeconds(30))).acquire(Duration.ofSeconds(2));
        }

        /**
         * Releases with the replies held, waits until the server deleted the key, cuts the
         * connection and heals the link.
         *
         * @return the first release's status, or null if it failed (LockUnavailableException)
         */
        ReleaseStatus firstRelease() throws Exception {
            proxy.holdReplies();
            CompletableFuture<ReleaseStatus> release = lease.releaseAsync();
            eventually(() -> direct.sync().exists(name) == 0, "the server deleted the key");
            proxy.cutAll();
            proxy.pass();
            try {
                return release.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(LockUnavailableException.class);
                return null;
            }
        }

        /** {@code release()} again, as often as it fails while the client reconnects (up to 10 s). */
        ReleaseStatus retriedRelease() throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try {
                    return lease.release();
                } catch (LockUnavailableException notYetReconnected) {
                    if (System.nanoTime() - until > 0) {
                        throw notYetReconnected;
                    }
                    Thread.sleep(50);
                }
            }
        }

        @Override
        public void close() {
            direct.close();
            raw.shutdown();
            other.close();
            cut.close();
            proxy.close();
        }
    }
}
