package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.MultiLease;
import dev.leasehold.MultiLock;
import dev.leasehold.ReleaseStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** All or nothing, in one order: {@link MultiLock} over the engine and the in-memory protocol. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MultiLockTest {

    private static final Duration TTL = Duration.ofSeconds(30);

    private final InMemoryLockProtocol protocol = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50)), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    private DistributedLock lock(String name) {
        return engine.lock(name, LockOptions.watchdog(TTL), protocol);
    }

    @Test
    void takesEveryPartInNameOrderAndReleasesThemAll() {
        MultiLock multi = MultiLock.of(List.of(lock("c"), lock("a"), lock("b")));
        assertThat(multi.names()).containsExactly("a", "b", "c");
        MultiLease lease = multi.acquire(Duration.ofSeconds(1));
        assertThat(lease.leases()).extracting(l -> l.lockName()).containsExactly("a", "b", "c");
        assertThat(lease.isValid()).isTrue();
        assertThat(protocol.holder("a")).isPresent();
        assertThat(lease.lease("b").token()).isPositive();
        assertThatThrownBy(() -> lease.lease("z")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[a, b, c]");
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        assertThat(protocol.holder("a")).isEmpty();
        assertThat(protocol.holder("b")).isEmpty();
        assertThat(protocol.holder("c")).isEmpty();
    }

    @Test
    void aPartThatStaysHeldLeavesNothingHeldAndTimesOut() {
        protocol.grantTo("b", "someone-else", TTL);
        MultiLock multi = MultiLock.of(List.of(lock("a"), lock("b"), lock("c")));
        assertThatThrownBy(() -> multi.acquire(Duration.ofMillis(200))).isInstanceOf(LockTimeoutException.class);
        assertThat(protocol.holder("a")).as("the part taken first was released").isEmpty();
        assertThat(protocol.holder("c")).as("never taken").isEmpty();
        assertThat(multi.tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(engine.heldLeases()).isZero();
    }

    @Test
    void losingOnePartLosesTheWhole() throws Exception {
        LockOptions shortTtl = LockOptions.watchdog(Duration.ofMillis(300));
        MultiLease lease = MultiLock.of(List.of(engine.lock("x", shortTtl, protocol), engine.lock("y", shortTtl, protocol)))
                .acquire(Duration.ofSeconds(1));
        protocol.expire("y");
        protocol.grantTo("y", "someone-else", TTL);
        assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS).getMessage()).contains("'y'");
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(protocol.holder("x")).isEmpty();
    }

    @Test
    void twoMultiLocksOverlappingInOppositeOrdersNeverDeadlock() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            MultiLock forward = MultiLock.of(List.of(lock("p"), lock("q"), lock("r")));
            MultiLock backward = MultiLock.of(List.of(lock("r"), lock("q"), lock("p")));
            List<Future<Integer>> runs = List.of(pool.submit(() -> cycles(forward)), pool.submit(() -> cycles(backward)));
            for (Future<Integer> run : runs) {
                assertThat(run.get(20, TimeUnit.SECONDS)).isEqualTo(50);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static int cycles(MultiLock multi) {
        int done = 0;
        for (int i = 0; i < 50; i++) {
            try (MultiLease lease = multi.acquire(Duration.ofSeconds(10))) {
                assertThat(lease.isValid()).isTrue();
                done++;
            }
        }
        return done;
    }

    @Test
    void badPartsAreRefused() {
        assertThatThrownBy(() -> MultiLock.of(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MultiLock.of(List.of(lock("a"), lock("a"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two locks named 'a'");
        assertThatThrownBy(() -> MultiLock.of(List.of(lock("a"))).acquire(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait");
    }
}
