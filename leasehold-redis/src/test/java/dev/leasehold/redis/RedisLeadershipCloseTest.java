package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipListener;
import dev.leasehold.LeadershipOptions;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a candidate's listener hears around {@link Leadership#close()}. Found by a reviewer helper:
 * a close while the backend did not answer gave up waiting for the candidate's thread after 10 s
 * and shut its event thread down, so the term's {@code onRevoked}, queued later, was refused and
 * never came; and an {@code onElected} queued behind a listener still busy in the previous
 * {@code onRevoked} started after close() had returned, for a term already over.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisLeadershipCloseTest {

    @RegisterExtension
    static final TestServer<RedisServer> redis = TestServer.perClass(() -> RedisServer.builder().start());

    @Test
    void aCloseWhileTheServerDoesNotAnswerStillDeliversOnRevoked() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(redis.get().host(), redis.get().port());
             LockClient client = RedisLocks.builder().uri("redis://" + proxy.host() + ":" + proxy.port())
                     .operationTimeout(Duration.ofSeconds(8)).connect()) {
            Leadership leadership = client.leadership("close-unanswered", LeadershipOptions.defaults()
                    .withLockOptions(LockOptions.watchdog(Duration.ofSeconds(60))));
            CompletableFuture<Lease> elected = new CompletableFuture<>();
            CompletableFuture<String> revoked = new CompletableFuture<>();
            leadership.start(new LeadershipListener() {
                @Override
                public void onElected(Lease term) {
                    elected.complete(term);
                }

                @Override
                public void onRevoked(String reason) {
                    revoked.complete(reason);
                }
            });
            Lease term = elected.get(20, TimeUnit.SECONDS);
            proxy.blackhole();
            // The clearing of the record and the release each wait up to their bound: longer than close() waits.
            leadership.close();
            assertThat(term.isValid()).isFalse();
            assertThat(leadership.isLeader()).isFalse();
            assertThat(revoked).as("onRevoked, after onElected, though the server never answered")
                    .succeedsWithin(Duration.ofSeconds(30));
            proxy.pass();
        }
    }

    @Test
    void noOnElectedStartsAfterCloseReturned() throws Exception {
        try (LockClient client = RedisLocks.connect(redis.get().uri())) {
            Leadership leadership = client.leadership("events-after-close", LeadershipOptions.defaults()
                    .withLockOptions(LockOptions.watchdog(Duration.ofSeconds(30))));
            LinkedBlockingQueue<Lease> terms = new LinkedBlockingQueue<>();
            List<String> heard = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> closeReturned = new CompletableFuture<>();
            List<String> afterClose = new CopyOnWriteArrayList<>();
            leadership.start(new LeadershipListener() {
                @Override
                public void onElected(Lease term) {
                    String event = "onElected(token " + term.token() + ", valid " + term.isValid() + ")";
                    heard.add(event);
                    if (closeReturned.isDone()) {
                        afterClose.add(event);
                    }
                    terms.add(term);
                }

                @Override
                public void onRevoked(String reason) {
                    heard.add("onRevoked(" + reason + ")");
                    if (closeReturned.isDone()) {
                        afterClose.add("onRevoked");
                    }
                    if (heard.size() == 2) {
                        pause(1_000); // the listener's clean-up after its first term: it may block
                    }
                }
            });
            Lease first = terms.poll(20, TimeUnit.SECONDS);
            assertThat(first).isNotNull();
            first.release(); // the leader ends its term; the candidate stays in the election
            Thread.sleep(200); // elected again at once (the lock is free), while the listener is still busy
            leadership.close();
            closeReturned.complete(null);
            Thread.sleep(2_000);
            assertThat(afterClose).as("events heard after close() returned (all: %s)", heard)
                    .noneMatch(event -> event.startsWith("onElected"));
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
