package dev.leasehold.redis;

import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.MultiLease;
import dev.leasehold.MultiLock;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** All or nothing over several names, on a real server, between separate clients. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisMultiLockTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @Test
    void twoClientsLockingOverlappingSetsInOppositeOrdersNeverDeadlock() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (RedisLockClient a = RedisLocks.connect(server.get().uri()); RedisLockClient b = RedisLocks.connect(server.get().uri())) {
            MultiLock forward = a.multiLock("multi:1", "multi:2", "multi:3");
            MultiLock backward = b.multiLock("multi:3", "multi:2", "multi:1");
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            List<Future<Integer>> runs = List.of(
                    pool.submit(() -> cycles(forward, inside, overlaps)),
                    pool.submit(() -> cycles(backward, inside, overlaps)));
            for (Future<Integer> run : runs) {
                assertThat(run.get(30, TimeUnit.SECONDS)).isEqualTo(40);
            }
            assertThat(overlaps.get()).as("both held every part at once").isZero();
        } finally {
            pool.shutdownNow();
        }
        assertThat(server.get().command("EXISTS", "multi:1", "multi:2", "multi:3")).isEqualTo(0L);
    }

    private static int cycles(MultiLock multi, AtomicInteger inside, AtomicInteger overlaps) {
        int done = 0;
        for (int i = 0; i < 40; i++) {
            try (MultiLease lease = multi.acquire(Duration.ofSeconds(10))) {
                if (inside.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                assertThat(lease.isValid()).isTrue();
                inside.decrementAndGet();
                done++;
            }
        }
        return done;
    }

    @Test
    void aTimeoutOnOnePartLeavesNoPartHeldOnTheServer() {
        try (RedisLockClient holder = RedisLocks.connect(server.get().uri()); RedisLockClient other = RedisLocks.connect(server.get().uri())) {
            holder.lock("timeout:b", LockOptions.watchdog(Duration.ofSeconds(30))).acquire(Duration.ZERO);
            MultiLock multi = other.multiLock("timeout:c", "timeout:a", "timeout:b");
            assertThatThrownBy(() -> multi.acquire(Duration.ofMillis(300))).isInstanceOf(LockTimeoutException.class);
            assertThat(server.get().command("EXISTS", "timeout:a")).as("taken first, then released").isEqualTo(0L);
            assertThat(server.get().command("EXISTS", "timeout:c")).as("never reached").isEqualTo(0L);
            assertThat(other.heldLeases()).isZero();
        }
    }
}
