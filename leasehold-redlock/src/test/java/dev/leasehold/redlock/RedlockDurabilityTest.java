package dev.leasehold.redlock;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first way to meet the Redlock assumption: every node runs {@code appendonly yes} with
 * {@code appendfsync always}, so a crash loses no acknowledged write, and nodes may restart at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockDurabilityTest {

    @RegisterExtension
    static final TestServer<RedisNodes> nodes = TestServer.perClass(() -> RedisNodes.start(5, builder -> builder.appendFsyncAlways()));

    @Test
    void tokensStrictlyIncreaseAcross200AcquisitionsWhileNodesAreKilledAndRestartedOneAtATime() {
        String name = "durable";
        // Counters an hour ahead of every clock on two nodes: tokens then come from the counters,
        // so only the write-back and the fsynced files keep them growing, not the clocks.
        long ahead = System.currentTimeMillis() * 1000 + 3_600_000_000L;
        nodes.get().get(0).command("SET", "{" + name + "}:fence", Long.toString(ahead));
        nodes.get().get(1).command("SET", "{" + name + "}:fence", Long.toString(ahead + 1_000));
        List<Long> tokens = new ArrayList<>();
        int restarts = 0;
        try (RedlockLockClient locks = RedlockLocks.connect(nodes.get().uris())) {
            DistributedLock lock = locks.lock(name, LockOptions.watchdog(Duration.ofSeconds(5)));
            RedisServer down = null;
            for (int i = 0; i < 200; i++) {
                // Every 20 acquisitions the next node crashes (SIGKILL); 10 acquisitions later it restarts.
                if (i % 20 == 5) {
                    down = nodes.get().get(i / 20 % 5);
                    down.kill();
                } else if (i % 20 == 15) {
                    down.restart();
                    restarts++;
                }
                try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
                    tokens.add(lease.token());
                }
            }
        }
        assertThat(restarts).as("every node crashed and came back twice").isEqualTo(10);
        assertThat(tokens).hasSize(200);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d", i).isGreaterThan(tokens.get(i - 1));
        }
        assertThat(tokens.get(tokens.size() - 1)).as("the counters ahead of the clocks were never lost").isGreaterThan(ahead + 1_000);
        long last = tokens.get(tokens.size() - 1);
        long storing = IntStream.range(0, 5).filter(i -> nodes.get().fence(i, name) >= last).count();
        assertThat(storing).as("nodes that store the last token").isGreaterThanOrEqualTo(3);
    }
}
