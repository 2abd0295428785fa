package dev.leasehold.testkit.contract;

import dev.leasehold.BrokenLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.Lease;
import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import dev.leasehold.engine.EngineLockClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a backend that can inspect, list and break its locks promises: core's
 * {@link LockInfo} for every kind (the holders of the lock family or the permits, the kind, the
 * waiters, the last token right after an acquire), {@code list} by glob, and a break after which
 * every lease has a greater token than the broken one. A backend module extends it, says how to make
 * a client, and inherits every test; each test talks to real servers the subclass starts.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class InspectorContract extends ClientsPerTest {

    /** A lock name no other test uses. */
    protected static String name(String what) {
        return "inspector:" + what + ":" + System.nanoTime();
    }

    @Test
    void inspectReportsTheHolderAndItsTokenRightAfterAnAcquire() {
        EngineLockClient client = client();
        String name = name("token");
        LockInfo free = client.inspect(name);
        assertThat(free.isHeld()).isFalse();
        assertThat(free.waiters()).isZero();
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            LockInfo held = client.inspect(name);
            assertThat(held.lastToken()).as("the token just issued, not 'no token issued recently'").hasValue(lease.token());
            assertThat(held.kind()).contains(LockKind.MUTEX);
            assertThat(held.holders()).singleElement().satisfies(holder -> assertThat(holder).hasSize(7).endsWith("…"));
            assertThat(held.waiters()).isZero();
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
        EngineLockClient inspector = client();
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
        EngineLockClient client = client();
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
        EngineLockClient client = client();
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
    void breakEndsTheHolderAndEveryLaterLeaseHasAGreaterToken() throws Exception {
        String name = name("break");
        EngineLockClient holder = client();
        EngineLockClient operator = client();
        assertThat(operator.breakLock(name, "nothing to break")).isEmpty();
        Lease broken = holder.lock(name).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiter = client().lock(name).acquireAsync(Duration.ofSeconds(30));
        awaitWaiters(operator, name, 1);

        Optional<BrokenLock> record = operator.breakLock(name, "stuck job");
        assertThat(record).hasValueSatisfying(what -> {
            assertThat(what.fence()).isGreaterThanOrEqualTo(broken.token());
            assertThat(what.reason()).isEqualTo("stuck job");
            assertThat(what.holder()).hasSize(7).endsWith("…");
        });
        broken.lost().toCompletableFuture().get(30, TimeUnit.SECONDS);
        try (Lease next = waiter.get(30, TimeUnit.SECONDS)) {
            assertThat(next.token()).as("the waiter's lease comes after the fence").isGreaterThan(record.get().fence());
        }
        assertThatThrownBy(() -> operator.breakLock(name, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reason");
    }

    /** Waits until {@code client} sees at least {@code waiters} acquisitions queued on {@code name}. */
    protected static void awaitWaiters(EngineLockClient client, String name, long waiters) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.inspect(name).waiters() < waiters) {
            assertThat(System.nanoTime()).as("%d waiter(s) queued on %s", waiters, name).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
