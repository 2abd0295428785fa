package dev.leasehold.redlock;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hold-at-least against five real redis-server processes beyond the shared contract
 * ({@link RedlockHoldAtLeastContractTest}): the key is kept on every node where it is still ours.
 */
class RedlockHoldAtLeastTest {

    @RegisterExtension
    static final TestServer<RedisNodes> nodes = TestServer.perClass(() -> RedisNodes.start(5));

    @Test
    void anEarlyReleaseShortensTheKeyOnEveryNode() throws Exception {
        try (LockClient client = RedlockLocks.connect(nodes.get().uris())) {
            Lease lease = client.lock("hold:nodes", LockOptions.watchdog(Duration.ofSeconds(30))
                    .holdAtLeast(Duration.ofSeconds(2))).acquire(Duration.ofSeconds(5));
            lease.release();
            for (int i = 0; i < 5; i++) {
                long pttl = (Long) nodes.get().get(i).command("PTTL", "hold:nodes");
                assertThat(pttl).as("node %d: shortened from 30 s to what is left of 2 s", i).isBetween(1L, 2_000L);
            }
        }
    }
}
