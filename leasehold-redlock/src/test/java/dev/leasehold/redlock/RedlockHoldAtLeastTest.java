package dev.leasehold.redlock;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.testkit.contract.HoldAtLeastContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Hold-at-least against five real redis-server processes: the key is kept on every node where it is still ours. */
class RedlockHoldAtLeastTest extends HoldAtLeastContract {

    private static RedisNodes nodes;

    @BeforeAll
    static void startNodes() {
        nodes = RedisNodes.start(5);
    }

    @AfterAll
    static void stopNodes() {
        nodes.close();
    }

    @Override
    protected LockClient connect() {
        return RedlockLocks.connect(nodes.uris());
    }

    @Override
    protected AutoCloseable pauseBackend() {
        nodes.pauseAll();
        return nodes::resumeAll;
    }

    @Test
    void anEarlyReleaseShortensTheKeyOnEveryNode() throws Exception {
        try (LockClient client = connect()) {
            Lease lease = client.lock("hold:nodes", LockOptions.watchdog(Duration.ofSeconds(30))
                    .holdAtLeast(Duration.ofSeconds(2))).acquire(Duration.ofSeconds(5));
            lease.release();
            for (int i = 0; i < 5; i++) {
                long pttl = (Long) nodes.get(i).command("PTTL", "hold:nodes");
                assertThat(pttl).as("node %d: shortened from 30 s to what is left of 2 s", i).isBetween(1L, 2_000L);
            }
        }
    }
}
