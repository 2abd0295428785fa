package dev.leasehold.integration;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What Spring Integration expects of a lock registry, as its own registries' tests exercise it, on a
 * real backend: each subclass gives the clients. Two registries over two clients stand for two
 * application instances.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class LockRegistryContract {

    private final List<LockClient> clients = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    /** A new client of the backend under test. */
    protected abstract LockClient connect();

    protected final LockClient client() {
        LockClient client = connect();
        clients.add(client);
        return client;
    }

    protected final LeaseholdLockRegistry registry() {
        return new LeaseholdLockRegistry(client());
    }

    protected static String key(String what) {
        return "si-" + what + "-" + System.nanoTime();
    }

    @AfterEach
    void closeClients() {
        threads.shutdownNow();
        clients.forEach(LockClient::close);
        clients.clear();
    }

    private <T> T onAnotherThread(Callable<T> work) throws Exception {
        try {
            return threads.submit(work).get(20, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            throw (Exception) failed.getCause();
        }
    }

    @Test
    void obtainReturnsOneReusableLockPerKey() {
        LeaseholdLockRegistry registry = registry();
        String key = key("obtain");
        LeaseholdLock lock = registry.obtain(key);
        assertThat(registry.obtain(key)).isSameAs(lock);
        assertThat(registry.obtain(key + "-other")).isNotSameAs(lock);
        for (int round = 0; round < 3; round++) {
            lock.lock();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            lock.unlock();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
        }
    }

    @Test
    void aLockHeldInOneRegistryExcludesAnotherRegistryOnAnotherClient() throws Exception {
        String key = key("exclude");
        LeaseholdLock first = registry().obtain(key);
        LeaseholdLock second = registry().obtain(key);
        first.lock();
        long firstToken = first.currentLease().orElseThrow().token();
        assertThat(second.tryLock()).as("another client's try while held").isFalse();
        assertThat(second.tryLock(200, TimeUnit.MILLISECONDS)).as("a timed try while held").isFalse();
        assertThat(second.holdCount()).isZero();
        first.unlock();
        assertThat(first.currentLease()).isEmpty();
        assertThat(second.tryLock()).as("once released").isTrue();
        assertThat(second.currentLease().orElseThrow().token()).isGreaterThan(firstToken);
        assertThat(first.tryLock()).isFalse();
        second.unlock();
    }

    @Test
    void theSameThreadReentersWithOneLeaseAndAnotherThreadWaits() throws Exception {
        LeaseholdLockRegistry registry = registry();
        String key = key("reentry");
        LeaseholdLock lock = registry.obtain(key);
        lock.lock();
        Lease lease = lock.currentLease().orElseThrow();
        lock.lockInterruptibly();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.holdCount()).isEqualTo(4);
        assertThat(registry.currentLease(key)).containsSame(lease);

        assertThat(onAnotherThread(() -> lock.tryLock())).as("another thread of the same registry").isFalse();
        assertThat(onAnotherThread(() -> lock.tryLock(200, TimeUnit.MILLISECONDS))).isFalse();
        assertThat(onAnotherThread(() -> registry.currentLease(key))).isEmpty();
        assertThatThrownBy(() -> onAnotherThread(() -> {
            lock.unlock();
            return null;
        })).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(key);
        assertThat(registry().obtain(key).tryLock()).as("another registry").isFalse();

        for (int held = 3; held >= 1; held--) {
            lock.unlock();
            assertThat(lock.holdCount()).isEqualTo(held);
            assertThat(lease.isValid()).as("still held while the count is above zero").isTrue();
        }
        Future<Boolean> waiter = threads.submit(() -> {
            boolean got = lock.tryLock(10, TimeUnit.SECONDS);
            lock.unlock();
            return got;
        });
        Thread.sleep(100);
        assertThat(waiter).as("waits while this thread holds").isNotDone();
        lock.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).as("gets it after the last unlock").isTrue();
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aTimedTryGetsTheLockWhenTheHolderUnlocksWithinTheWait() throws Exception {
        String key = key("timed");
        LeaseholdLock holder = registry().obtain(key);
        LeaseholdLock waiter = registry().obtain(key);
        holder.lock();
        CountDownLatch trying = new CountDownLatch(1);
        Future<Long> got = threads.submit(() -> {
            trying.countDown();
            if (!waiter.tryLock(Duration.ofSeconds(10), Duration.ofSeconds(5))) {
                return -1L;
            }
            long token = waiter.currentLease().orElseThrow().token();
            waiter.unlock();
            return token;
        });
        trying.await();
        Thread.sleep(200);
        long holderToken = holder.currentLease().orElseThrow().token();
        holder.unlock();
        assertThat(got.get(10, TimeUnit.SECONDS)).isGreaterThan(holderToken);
    }

    @Test
    void anInterruptEndsLockInterruptiblyAndLeavesNothingHeld() throws Exception {
        String key = key("interrupt");
        LeaseholdLock holder = registry().obtain(key);
        LeaseholdLockRegistry waiting = registry();
        holder.lock();
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Future<Boolean> interrupted = threads.submit(() -> {
            waiterThread.set(Thread.currentThread());
            started.countDown();
            try {
                waiting.obtain(key).lockInterruptibly();
                return false;
            } catch (InterruptedException expected) {
                return !waiting.obtain(key).isHeldByCurrentThread();
            }
        });
        started.await();
        Thread.sleep(200);
        waiterThread.get().interrupt();
        assertThat(interrupted.get(10, TimeUnit.SECONDS)).as("InterruptedException, and not held").isTrue();
        holder.unlock();
        LeaseholdLock third = registry().obtain(key);
        assertThat(third.tryLock(5, TimeUnit.SECONDS)).as("the interrupted waiter left nothing held").isTrue();
        third.unlock();
        // lock() is not interruptible: it acquires and keeps the interrupt in the flag.
        assertThat(onAnotherThread(() -> {
            Thread.currentThread().interrupt();
            LeaseholdLock lock = waiting.obtain(key);
            lock.lock();
            boolean flagKept = Thread.interrupted();
            lock.unlock();
            return flagKept;
        })).isTrue();
    }

    @Test
    void expireUnusedOlderThanForgetsIdleLocksButNeverAHeldOne() throws Exception {
        LeaseholdLockRegistry registry = registry();
        String idleKey = key("idle");
        String heldKey = key("held");
        LeaseholdLock idle = registry.obtain(idleKey);
        idle.lock();
        idle.unlock();
        LeaseholdLock held = registry.obtain(heldKey);
        held.lock();
        Thread.sleep(50);

        registry.expireUnusedOlderThan(10_000);
        assertThat(registry.obtain(idleKey)).as("younger than the age").isSameAs(idle);
        Thread.sleep(50);
        registry.expireUnusedOlderThan(20);
        assertThat(registry.obtain(heldKey)).as("held: never forgotten").isSameAs(held);
        assertThat(held.isHeldByCurrentThread()).isTrue();
        LeaseholdLock renewed = registry.obtain(idleKey);
        assertThat(renewed).as("idle: forgotten").isNotSameAs(idle);

        // The forgotten object still shares its key's state: exclusion and reentrancy hold across both.
        idle.lock();
        assertThat(renewed.isHeldByCurrentThread()).isTrue();
        assertThat(renewed.tryLock()).isTrue();
        assertThat(onAnotherThread(() -> renewed.tryLock())).isFalse();
        renewed.unlock();
        idle.unlock();
        held.unlock();
        registry.expireUnusedOlderThan(0);
        assertThat(registry.obtain(heldKey)).as("forgotten once unlocked").isNotSameAs(held);
    }

    @Test
    void renewLockExtendsAHeldLeaseAndRefusesALockNotHeld() throws Exception {
        LeaseholdLockRegistry registry = new LeaseholdLockRegistry(client(), LockOptions.fixedLease(Duration.ofSeconds(1)));
        String key = key("renew");
        LeaseholdLock lock = registry.obtain(key);
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not held by the current thread");
        lock.lock();
        Lease lease = lock.currentLease().orElseThrow();
        assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(1));
        registry.renewLock(key, Duration.ofSeconds(20));
        // Far past the first second; on ZooKeeper the session caps the local deadline below the 20 s asked.
        assertThat(lease.remaining()).as("extended on the backend").isGreaterThan(Duration.ofSeconds(5));
        Thread.sleep(1_200);
        assertThat(lease.isValid()).as("valid past its first lease time").isTrue();
        assertThat(registry().obtain(key).tryLock()).as("another client is still excluded").isFalse();
        registry.renewLock(key);
        assertThatThrownBy(() -> onAnotherThread(() -> {
            registry.renewLock(key);
            return null;
        })).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> registry.renewLock(key, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl");
        lock.unlock();
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aLostLeaseFailsReentryAndUnlockLoudlyAndNeverTouchesTheNextHolder() throws Exception {
        LeaseholdLockRegistry registry = new LeaseholdLockRegistry(client(), LockOptions.fixedLease(Duration.ofMillis(300)));
        String key = key("lost");
        LeaseholdLock lock = registry.obtain(key);
        lock.lock();
        lock.lock();
        Lease lease = lock.currentLease().orElseThrow();
        lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);

        LeaseholdLock next = registry().obtain(key);
        assertThat(next.tryLock(10, TimeUnit.SECONDS)).as("the backend freed the expired lease").isTrue();
        long nextToken = next.currentLease().orElseThrow().token();
        assertThat(nextToken).isGreaterThan(lease.token());

        assertThatThrownBy(lock::lock).as("re-entry after the loss").isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("unlock()");
        assertThat(lock.holdCount()).isEqualTo(2);
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining(key).hasMessageContaining("token " + lease.token())
                .satisfies(e -> {
                    LockLostException lost = (LockLostException) e;
                    assertThat(lost.token()).isEqualTo(lease.token());
                    assertThat(lost.lockName()).isEqualTo(key);
                    assertThat(lost.getCause()).isInstanceOf(LeaseLostException.class);
                });
        assertThat(lock.isHeldByCurrentThread()).as("the hold is dropped").isFalse();
        assertThat(next.currentLease().orElseThrow().isValid()).as("the next holder keeps its lease").isTrue();
        assertThat(registry().obtain(key).tryLock()).as("and the lock").isFalse();

        next.unlock();
        assertThat(lock.tryLock(5, TimeUnit.SECONDS)).as("a new lease after the loss").isTrue();
        assertThat(lock.currentLease().orElseThrow().token()).isGreaterThan(nextToken);
        lock.unlock();
    }

    @Test
    void aTtlPerCallIsTheLeaseTime() throws Exception {
        LeaseholdLockRegistry registry = new LeaseholdLockRegistry(client(), LockOptions.fixedLease(Duration.ofSeconds(30)));
        LeaseholdLock lock = registry.obtain(key("ttl"));
        lock.lock(Duration.ofMillis(500));
        assertThat(lock.currentLease().orElseThrow().remaining()).isLessThanOrEqualTo(Duration.ofMillis(500));
        lock.unlock();
        assertThat(lock.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(2))).isTrue();
        assertThat(lock.currentLease().orElseThrow().remaining())
                .isGreaterThan(Duration.ofMillis(500)).isLessThanOrEqualTo(Duration.ofSeconds(2));
        lock.unlock();
        assertThatThrownBy(() -> lock.lock(Duration.ofMillis(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void executeLockedExcludesThreadsOfTwoRegistriesWithIncreasingTokens() throws Exception {
        String key = key("execute");
        List<LeaseholdLockRegistry> registries = List.of(registry(), registry());
        int[] counter = {0};
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int worker = 0; worker < 6; worker++) {
            LeaseholdLockRegistry registry = registries.get(worker % 2);
            workers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 15; i++) {
                    try {
                        registry.executeLocked(key, Duration.ofSeconds(20), () -> {
                            tokens.add(registry.currentLease(key).orElseThrow().token());
                            int read = counter[0];
                            Thread.yield();
                            counter[0] = read + 1;
                        });
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }, threads));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);
        assertThat(counter[0]).as("no lost update").isEqualTo(90);
        assertThat(tokens).hasSize(90).isSorted().doesNotHaveDuplicates();
    }
}
