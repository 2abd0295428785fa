package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipListener;
import dev.leasehold.LeadershipOptions;
import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** What a candidate leaves behind when its client is closed under it, on a real redis-server. */
class RedisLeadershipThreadsTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    /**
     * The client's close ends every thread it started, also a candidate's (its campaign and its
     * event thread) that was never closed itself: an application that closes the client on
     * shutdown or redeploy must not keep a thread per election.
     */
    @Test
    void closingTheClientUnderARunningLeaderLeavesNoCandidateThreadBehind() throws Exception {
        String name = "threads-" + System.nanoTime();
        CompletableFuture<String> revoked = new CompletableFuture<>();
        LockClient client = RedisLocks.connect(server.get().uri());
        Leadership candidate = client.leadership(name, LeadershipOptions.defaults());
        candidate.start(new LeadershipListener() {
            @Override
            public void onElected(Lease term) {
            }

            @Override
            public void onRevoked(String reason) {
                revoked.complete(reason);
            }
        });
        assertThat(candidate.awaitLeadership(Duration.ofSeconds(10))).isPresent();
        client.close();
        assertThat(revoked.get(10, TimeUnit.SECONDS)).as("the leader is told its term ended").isNotBlank();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> left = candidateThreads(name);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            left = candidateThreads(name);
        }
        assertThat(left).as("candidate threads alive 10 s after the client closed").isEmpty();
    }

    private static List<String> candidateThreads(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(thread -> thread.contains(name)).toList();
    }
}
