package dev.leasehold.zookeeper;

import dev.leasehold.BrokenLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.Lease;
import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** inspect, list and break on ZooKeeper: core's LockInfo for every kind, and the last token right after an acquire. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperInspectorTest {

    private final List<ZooKeeperLockClient> clients = new ArrayList<>();

    private ZooKeeperLockClient client() {
        ZooKeeperLockClient client = TestClients.connect(Ensemble.shared());
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeClients() {
        clients.forEach(ZooKeeperLockClient::close);
    }

    private static String name(String what) {
        return "inspector:" + what + ":" + System.nanoTime();
    }

    @Test
    void inspectReportsTheTokenRightAfterAnAcquireAndAFenceOnceFree() {
        ZooKeeperLockClient client = client();
        String name = name("token");
        assertThat(client.inspect(name)).isEqualTo(LockInfo.free(name, java.util.OptionalLong.empty()));
        long token;
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            token = lease.token();
            LockInfo held = client.inspect(name);
            assertThat(held.lastToken()).as("not 'no token issued recently'").hasValue(token);
            assertThat(held.kind()).contains(LockKind.MUTEX);
            assertThat(held.holders()).singleElement().satisfies(holder -> assertThat(holder).hasSize(7).endsWith("…"));
            assertThat(held.waiters()).isZero();
            assertThat(held.remaining()).as("a node lives as long as its session").isEmpty();
        }
        LockInfo free = client.inspect(name);
        assertThat(free.isHeld()).isFalse();
        assertThat(free.lastToken().orElseThrow()).as("the fence: at least every token issued").isGreaterThanOrEqualTo(token);
        try (Lease next = client.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(next.token()).as("and below every later one").isGreaterThan(free.lastToken().orElseThrow());
        }
    }

    @Test
    void inspectShowsEveryReaderAndTheWaitingWriter() throws Exception {
        String name = name("readers");
        DistributedReadWriteLock a = client().readWriteLock(name);
        DistributedReadWriteLock b = client().readWriteLock(name);
        Lease first = a.readLock().acquire(Duration.ofSeconds(5));
        Lease second = b.readLock().acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> writer = client().readWriteLock(name).writeLock().acquireAsync(Duration.ofSeconds(10));
        ZooKeeperLockClient inspector = client();
        awaitWaiters(inspector, name, 1);
        LockInfo info = inspector.inspect(name);
        assertThat(info.kind()).contains(LockKind.READ);
        assertThat(info.holders()).hasSize(2);
        assertThat(info.waiters()).isEqualTo(1);
        assertThat(info.lastToken()).hasValue(Math.max(first.token(), second.token()));
        first.release();
        second.release();
        writer.get(5, TimeUnit.SECONDS).release();
    }

    @Test
    void inspectShowsThePermitsHeld() {
        String name = name("permits");
        ZooKeeperLockClient client = client();
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
        ZooKeeperLockClient client = client();
        String prefix = name("list");
        try (Lease a = client.lock(prefix + ":a").acquire(Duration.ofSeconds(5));
             Lease b = client().semaphore(prefix + ":b/x", 2).acquire(Duration.ofSeconds(5))) {
            client.lock(prefix + ":c").acquire(Duration.ofSeconds(5)).release();
            client.lock(prefix + "-other").acquire(Duration.ofSeconds(5)).release();
            List<LockInfo> held = client.list(prefix + ":*");
            assertThat(held).extracting(LockInfo::name).containsExactly(prefix + ":a", prefix + ":b/x");
            assertThat(held.get(0).lastToken()).hasValue(a.token());
            assertThat(held.get(1).kind()).contains(LockKind.permits(2));
            assertThat(client.list(prefix + ":?")).extracting(LockInfo::name).containsExactly(prefix + ":a");
        }
        assertThatThrownBy(() -> client.list(prefix + "[")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never closed");
    }

    @Test
    void breakDeletesTheHolderAndEveryLaterLeaseHasAGreaterToken() throws Exception {
        String name = name("break");
        ZooKeeperLockClient holder = client();
        ZooKeeperLockClient operator = client();
        assertThat(operator.breakLock(name, "nothing to break")).isEmpty();
        Lease broken = holder.lock(name).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiter = client().lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitWaiters(operator, name, 1);

        Optional<BrokenLock> record = operator.breakLock(name, "stuck job");
        assertThat(record).hasValueSatisfying(what -> {
            assertThat(what.fence()).isGreaterThanOrEqualTo(broken.token());
            assertThat(what.reason()).isEqualTo("stuck job");
            assertThat(what.holder()).hasSize(7).endsWith("…");
        });
        broken.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Lease next = waiter.get(10, TimeUnit.SECONDS)) {
            assertThat(next.token()).as("the waiter queued again past the fence").isGreaterThan(record.get().fence());
        }
        assertThatThrownBy(() -> operator.breakLock(name, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reason");
    }

    private static void awaitWaiters(ZooKeeperLockClient client, String name, long waiters) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.queue(name).waiters() < waiters) {
            assertThat(System.nanoTime()).as("%d waiter(s) queued on %s", waiters, name).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
