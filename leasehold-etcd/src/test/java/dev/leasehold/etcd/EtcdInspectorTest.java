package dev.leasehold.etcd;

import dev.leasehold.BrokenLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.Lease;
import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** inspect, list and break on etcd: core's LockInfo for every kind, from the queues of keys. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdInspectorTest {

    private static EtcdCluster cluster;
    private final List<EtcdLockClient> clients = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(EtcdLockClient::close);
    }

    private EtcdLockClient client() {
        EtcdLockClient client = EtcdLocks.connect(cluster.endpoints());
        clients.add(client);
        return client;
    }

    private static String name(String what) {
        return "inspector:" + what + ":" + System.nanoTime();
    }

    @Test
    void inspectReportsTheHolderItsTokenAndItsLeaseRightAfterAnAcquire() {
        EtcdLockClient client = client();
        String name = name("token");
        assertThat(client.inspect(name)).isEqualTo(LockInfo.free(name, OptionalLong.empty()));
        try (Lease lease = client.lock(name, LockOptions.watchdog(Duration.ofSeconds(20)))
                .acquire(Duration.ofSeconds(5))) {
            LockInfo held = client.inspect(name);
            assertThat(held.lastToken()).hasValue(lease.token());
            assertThat(held.kind()).contains(LockKind.MUTEX);
            assertThat(held.holders()).singleElement().satisfies(holder -> assertThat(holder).hasSize(7).endsWith("…"));
            assertThat(held.waiters()).isZero();
            assertThat(held.remaining()).hasValueSatisfying(left -> assertThat(left)
                    .isGreaterThan(Duration.ZERO).isLessThanOrEqualTo(Duration.ofSeconds(20)));
        }
        assertThat(client.inspect(name).isHeld()).isFalse();
    }

    @Test
    void inspectShowsEveryReaderAndTheWaitingWriter() throws Exception {
        String name = name("readers");
        DistributedReadWriteLock a = client().readWriteLock(name);
        DistributedReadWriteLock b = client().readWriteLock(name);
        Lease first = a.readLock().acquire(Duration.ofSeconds(5));
        Lease second = b.readLock().acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> writer = client().readWriteLock(name).writeLock().acquireAsync(Duration.ofSeconds(10));
        EtcdLockClient inspector = client();
        awaitTrue(() -> inspector.inspect(name).waiters() == 1);
        LockInfo info = inspector.inspect(name);
        assertThat(info.kind()).contains(LockKind.READ);
        assertThat(info.holders()).hasSize(2);
        assertThat(info.lastToken()).hasValue(Math.max(first.token(), second.token()));
        first.release();
        second.release();
        writer.get(5, TimeUnit.SECONDS).release();
    }

    @Test
    void inspectShowsThePermitsHeld() {
        String name = name("permits");
        EtcdLockClient client = client();
        Lease one = client.semaphore(name, 3).acquire(Duration.ofSeconds(5));
        Lease two = client().semaphore(name, 3).acquire(Duration.ofSeconds(5));
        LockInfo info = client.inspect(name);
        assertThat(info.kind()).contains(LockKind.permits(3));
        assertThat(info.holders()).hasSize(2);
        assertThat(info.waiters()).isZero();
        assertThat(info.lastToken()).hasValue(two.token());
        one.release();
        two.release();
    }

    @Test
    void listFindsTheHeldLocksMatchingAGlob() {
        EtcdLockClient client = client();
        String prefix = name("list");
        try (Lease a = client.lock(prefix + ":a").acquire(Duration.ofSeconds(5));
             Lease b = client().semaphore(prefix + ":b/x%", 2).acquire(Duration.ofSeconds(5))) {
            client.lock(prefix + ":c").acquire(Duration.ofSeconds(5)).release();
            client.lock(prefix + "-other").acquire(Duration.ofSeconds(5)).release();
            List<LockInfo> held = client.list(prefix + ":*");
            assertThat(held).extracting(LockInfo::name).containsExactly(prefix + ":a", prefix + ":b/x%");
            assertThat(held.get(0).lastToken()).hasValue(a.token());
            assertThat(held.get(1).kind()).contains(LockKind.permits(2));
            assertThat(held.get(1).lastToken()).hasValue(b.token());
            assertThat(client.list(prefix + ":?")).extracting(LockInfo::name).containsExactly(prefix + ":a");
        }
        assertThatThrownBy(() -> client.list(prefix + "[")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never closed");
    }

    @Test
    void breakRevokesTheHolderAndEveryLaterLeaseHasAGreaterToken() throws Exception {
        String name = name("break");
        EtcdLockClient holder = client();
        EtcdLockClient operator = client();
        assertThat(operator.breakLock(name, "nothing to break")).isEmpty();
        Lease broken = holder.lock(name).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiter = client().lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitTrue(() -> operator.inspect(name).waiters() == 1);

        Optional<BrokenLock> record = operator.breakLock(name, "stuck job");
        assertThat(record).hasValueSatisfying(what -> {
            assertThat(what.fence()).isGreaterThanOrEqualTo(broken.token());
            assertThat(what.reason()).isEqualTo("stuck job");
            assertThat(what.holder()).hasSize(7).endsWith("…");
        });
        broken.lost().toCompletableFuture().get(30, TimeUnit.SECONDS);
        try (Lease next = waiter.get(30, TimeUnit.SECONDS)) {
            assertThat(next.token()).as("the waiter queued again past the fence").isGreaterThan(record.get().fence());
        }
        assertThatThrownBy(() -> operator.breakLock(name, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reason");
    }

    private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("the condition holds within 5 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
