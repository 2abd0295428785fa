package dev.leasehold.testkit.contract;

import dev.leasehold.BrokenLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LockInfo;
import dev.leasehold.LockOptions;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.StaleTokenException;
import dev.leasehold.engine.EngineLockClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The review of issue 20's refactor, once per backend: the kinds of one name against each other
 * (exclusion, tokens in grant order), the operator's break of readers, permits and a fair queue,
 * {@code list} over names and patterns with glob metacharacters and non-ASCII characters, and
 * another number of permits than the live ones. A backend module extends it and says how to connect.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class KindsReviewContract extends ClientsPerTest {

    private static final Duration SHORT_TTL = Duration.ofSeconds(3);

    private static String name(String what) {
        return "review:" + what + ":" + System.nanoTime();
    }

    @Test
    void theLockFamilyExcludesItselfPermitsExcludeNoneAndTokensFollowGrantOrder() {
        String name = name("kinds");
        EngineLockClient a = client();
        EngineLockClient b = client();
        Lease mutex = a.lock(name).acquire(Duration.ofSeconds(5));
        assertThat(b.readWriteLock(name).writeLock().tryAcquire(Duration.ZERO)).as("write vs mutex").isEmpty();
        assertThat(b.readWriteLock(name).readLock().tryAcquire(Duration.ZERO)).as("read vs mutex").isEmpty();
        assertThat(b.fairLock(name).tryAcquire(Duration.ZERO)).as("fair vs mutex").isEmpty();
        Lease permit = b.semaphore(name, 2).tryAcquire(Duration.ofSeconds(2))
                .orElseThrow(() -> new AssertionError("a permit must not be excluded by the mutex"));
        assertThat(permit.token()).as("the permit granted after the mutex").isGreaterThan(mutex.token());
        mutex.release();
        Lease read = b.readWriteLock(name).readLock().acquire(Duration.ofSeconds(5));
        assertThat(read.token()).isGreaterThan(permit.token());
        assertThat(a.readWriteLock(name).writeLock().tryAcquire(Duration.ZERO)).as("write vs read").isEmpty();
        read.release();
        Lease fair = a.fairLock(name).acquire(Duration.ofSeconds(5));
        assertThat(fair.token()).isGreaterThan(read.token());
        assertThat(b.readWriteLock(name).writeLock().tryAcquire(Duration.ZERO)).as("write vs fair").isEmpty();
        Lease second = a.semaphore(name, 2).acquire(Duration.ofSeconds(5));
        assertThat(second.token()).isGreaterThan(fair.token());
        fair.release();
        Lease write = b.readWriteLock(name).writeLock().acquire(Duration.ofSeconds(5));
        assertThat(write.token()).isGreaterThan(second.token());
        write.release();
        permit.release();
        second.release();
    }

    @Test
    protected void theMutexAndTheFairLockExcludeReadLeasesOfTheirName() {
        String name = name("mutex-read");
        EngineLockClient a = client();
        try (Lease read = client().readWriteLock(name).readLock().acquire(Duration.ofSeconds(5))) {
            assertThat(a.lock(name).tryAcquire(Duration.ZERO)).as("mutex vs read").isEmpty();
            assertThat(a.fairLock(name).tryAcquire(Duration.ZERO)).as("fair vs read").isEmpty();
            assertThat(read.isValid()).isTrue();
        }
    }

    @Test
    void aMutexAndAFairLockWaitingForReadersGetInOnceTheReadersRelease() throws Exception {
        String name = name("after-read");
        Lease read = client().readWriteLock(name).readLock().acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> mutex = client().lock(name).acquireAsync(Duration.ofSeconds(15));
        CompletableFuture<Lease> fair = client().fairLock(name).acquireAsync(Duration.ofSeconds(15));
        Thread.sleep(300);
        assertThat(mutex).as("the mutex waits for the reader").isNotDone();
        assertThat(fair).as("the fair lock waits for the reader").isNotDone();
        long readToken = read.token();
        read.release();
        Lease first = CompletableFuture.anyOf(mutex, fair).thenApply(Lease.class::cast).get(15, TimeUnit.SECONDS);
        assertThat(first.token()).isGreaterThan(readToken);
        first.release();
        Lease second = (mutex.isDone() && mutex.join() == first ? fair : mutex).get(15, TimeUnit.SECONDS);
        assertThat(second.token()).isGreaterThan(first.token());
        second.release();
    }

    @Test
    void breakingReadersEndsThemFencesThemAndTheWaitingWriterGetsIn() throws Exception {
        String name = name("break-readers");
        LockOptions shortLease = LockOptions.watchdog(SHORT_TTL);
        Lease first = client().readWriteLock(name, shortLease).readLock().acquire(Duration.ofSeconds(5));
        Lease second = client().readWriteLock(name, shortLease).readLock().acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> writer = client().readWriteLock(name).writeLock().acquireAsync(Duration.ofSeconds(30));
        EngineLockClient operator = client();
        InspectorContract.awaitWaiters(operator, name, 1);
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        guard.admit("resource", second, () -> null);

        BrokenLock broken = operator.breakLock(name, "review").orElseThrow();
        assertThat(broken.fence()).isGreaterThanOrEqualTo(Math.max(first.token(), second.token()));
        first.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
        second.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
        try (Lease next = writer.get(20, TimeUnit.SECONDS)) {
            assertThat(next.token()).isGreaterThan(broken.fence());
            guard.admit("resource", next, () -> null);
            assertThatThrownBy(() -> guard.admit("resource", first.token(), () -> null))
                    .isInstanceOf(StaleTokenException.class);
        }
    }

    @Test
    void breakingPermitsFreesThemForAnyNumberAndTheWaiterGetsIn() throws Exception {
        String name = name("break-permits");
        LockOptions shortLease = LockOptions.watchdog(SHORT_TTL);
        Lease one = client().semaphore(name, 2, shortLease).acquire(Duration.ofSeconds(5));
        Lease two = client().semaphore(name, 2, shortLease).acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> waiter = client().semaphore(name, 2).acquireAsync(Duration.ofSeconds(30));
        EngineLockClient operator = client();
        InspectorContract.awaitWaiters(operator, name, 1);

        BrokenLock broken = operator.breakLock(name, "review").orElseThrow();
        assertThat(broken.fence()).isGreaterThanOrEqualTo(Math.max(one.token(), two.token()));
        one.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
        two.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
        Lease next = waiter.get(20, TimeUnit.SECONDS);
        assertThat(next.token()).isGreaterThan(broken.fence());
        next.release();
        assertThat(operator.inspect(name).isHeld()).isFalse();
        try (Lease other = client().semaphore(name, 5).acquire(Duration.ofSeconds(5))) {
            assertThat(other.token()).as("another number after the break, nothing held").isGreaterThan(next.token());
        }
    }

    @Test
    void breakingAFairLockLetsEveryQueuedWaiterInOneAtATime() throws Exception {
        BrokenFairQueue queue = breakAFairLockWithTwoWaiters();
        Lease first = queue.firstGrant();
        assertThat(first.token()).isGreaterThan(queue.broken().fence());
        CompletableFuture<Lease> other = first == queue.firstWaiter().getNow(null) ? queue.secondWaiter()
                : queue.firstWaiter();
        Thread.sleep(200);
        assertThat(other).as("the fair lock stays exclusive after the break").isNotDone();
        first.release();
        try (Lease second = other.get(20, TimeUnit.SECONDS)) {
            assertThat(second.token()).isGreaterThan(first.token());
        }
    }

    /**
     * A backend that keeps a fair queue across a break (Redis: the queue is not the holder's) runs
     * this as a test of its own. ZooKeeper and etcd do not: a break deletes the waiters' nodes or
     * keys with the holders', each waiter queues again when it wakes, and the later arrival may be
     * granted first (their inspectors' {@code breakLock} Javadoc says so).
     */
    protected void breakingAFairLockKeepsTheWaitersArrivalOrder() throws Exception {
        BrokenFairQueue queue = breakAFairLockWithTwoWaiters();
        Lease first = queue.firstGrant();
        assertThat(queue.firstWaiter()).as("the waiter that arrived first is granted first").isCompletedWithValue(first);
        first.release();
        queue.secondWaiter().get(20, TimeUnit.SECONDS).release();
    }

    /** A fair lock broken while two waiters queue behind its holder, once the holder learnt of it. */
    private record BrokenFairQueue(BrokenLock broken, CompletableFuture<Lease> firstWaiter,
                                   CompletableFuture<Lease> secondWaiter) {

        /** The lease of whichever waiter is granted first. */
        Lease firstGrant() throws Exception {
            return (Lease) CompletableFuture.anyOf(firstWaiter, secondWaiter).get(20, TimeUnit.SECONDS);
        }
    }

    private BrokenFairQueue breakAFairLockWithTwoWaiters() throws Exception {
        String name = name("break-fair");
        Lease holder = client().fairLock(name, LockOptions.watchdog(SHORT_TTL)).acquire(Duration.ofSeconds(5));
        EngineLockClient operator = client();
        CompletableFuture<Lease> firstWaiter = client().fairLock(name).acquireAsync(Duration.ofSeconds(30));
        InspectorContract.awaitWaiters(operator, name, 1);
        CompletableFuture<Lease> secondWaiter = client().fairLock(name).acquireAsync(Duration.ofSeconds(30));
        InspectorContract.awaitWaiters(operator, name, 2);
        BrokenLock broken = operator.breakLock(name, "review").orElseThrow();
        holder.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
        return new BrokenFairQueue(broken, firstWaiter, secondWaiter);
    }

    @Test
    void listTakesGlobMetacharactersLiterallyWhenEscapedAndMatchesOneCharacterWithAQuestionMark() {
        String prefix = name("glob");
        EngineLockClient client = client();
        List<String> names = List.of(prefix + ":a*b", prefix + ":a?b", prefix + ":a[b", prefix + ":a\\b",
                prefix + ":a{t}b", prefix + ":é", prefix + ":x");
        List<Lease> leases = new ArrayList<>();
        for (String each : names) {
            leases.add(client.lock(each).acquire(Duration.ofSeconds(5)));
        }
        try {
            assertThat(client.list(prefix + ":*")).extracting(LockInfo::name).containsExactlyInAnyOrderElementsOf(names);
            assertThat(client.list(prefix + ":a\\*b")).extracting(LockInfo::name).containsExactly(prefix + ":a*b");
            assertThat(client.list(prefix + ":a\\?b")).extracting(LockInfo::name).containsExactly(prefix + ":a?b");
            assertThat(client.list(prefix + ":a\\[b")).extracting(LockInfo::name).containsExactly(prefix + ":a[b");
            assertThat(client.list(prefix + ":a\\\\b")).extracting(LockInfo::name).containsExactly(prefix + ":a\\b");
            assertThat(client.list(prefix + ":a{t}b")).extracting(LockInfo::name).containsExactly(prefix + ":a{t}b");
            assertThat(client.list(prefix + ":a[*?]b")).extracting(LockInfo::name)
                    .containsExactlyInAnyOrder(prefix + ":a*b", prefix + ":a?b");
            assertThat(client.list(prefix + ":é")).extracting(LockInfo::name).containsExactly(prefix + ":é");
        } finally {
            leases.forEach(Lease::release);
        }
    }

    @Test
    protected void listMatchesANonAsciiCharacterWithAQuestionMarkAndASet() {
        String prefix = name("unicode");
        EngineLockClient client = client();
        try (Lease accented = client.lock(prefix + ":é").acquire(Duration.ofSeconds(5));
             Lease ascii = client.lock(prefix + ":x").acquire(Duration.ofSeconds(5));
             Lease wide = client.semaphore(prefix + ":日", 2).acquire(Duration.ofSeconds(5))) {
            assertThat(client.list(prefix + ":?")).as("? is one character, whatever its encoding")
                    .extracting(LockInfo::name).containsExactlyInAnyOrder(prefix + ":é", prefix + ":x", prefix + ":日");
            assertThat(client.list(prefix + ":[éx]")).as("a set with a non-ASCII character").extracting(LockInfo::name)
                    .containsExactlyInAnyOrder(prefix + ":é", prefix + ":x");
            assertThat(client.list(prefix + ":[^x]")).extracting(LockInfo::name)
                    .containsExactlyInAnyOrder(prefix + ":é", prefix + ":日");
        }
    }

    @Test
    void listRefusesBadPatternsWithAnIllegalArgumentException() {
        EngineLockClient client = client();
        for (String bad : new String[] {"", "a[b", "[", "a[\\]"}) {
            assertThatThrownBy(() -> client.list(bad)).as("pattern '%s'", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("pattern");
        }
        assertThatThrownBy(() -> client.list(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anotherNumberOfPermitsThanTheLiveOnesFailsTypedNamingBoth() {
        String name = name("mismatch");
        EngineLockClient other = client();
        DistributedSemaphore three = other.semaphore(name, 3);
        try (Lease held = client().semaphore(name, 2).acquire(Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> three.acquire(Duration.ofSeconds(2))).isInstanceOfSatisfying(
                    PermitsMismatchException.class, e -> assertThat(e.heldWith()).isEqualTo(2));
            assertThatThrownBy(() -> three.tryAcquire(Duration.ZERO)).isInstanceOf(PermitsMismatchException.class);
            assertThatThrownBy(() -> three.acquireAsync(Duration.ZERO).join()).hasCauseInstanceOf(PermitsMismatchException.class);
            assertThat(held.isValid()).isTrue();
            assertThat(other.inspect(name).holders()).as("the refused acquires took nothing").hasSize(1);
        }
    }

    @Test
    void closingAClientWithAcquisitionsInFlightLeavesNothingBehind() throws Exception {
        String name = name("close");
        EngineLockClient holder = client();
        Lease mutex = holder.lock(name).acquire(Duration.ofSeconds(5));
        Lease permit = holder.semaphore(name + ":s", 1).acquire(Duration.ofSeconds(5));
        EngineLockClient closing = connect();
        List<CompletableFuture<Lease>> inFlight = List.of(
                closing.lock(name).acquireAsync(Duration.ofSeconds(30)),
                closing.fairLock(name).acquireAsync(Duration.ofSeconds(30)),
                closing.readWriteLock(name).readLock().acquireAsync(Duration.ofSeconds(30)),
                closing.readWriteLock(name).writeLock().acquireAsync(Duration.ofSeconds(30)),
                closing.semaphore(name + ":s", 1).acquireAsync(Duration.ofSeconds(30)));
        InspectorContract.awaitWaiters(holder, name, 1);
        closing.close();
        for (CompletableFuture<Lease> each : inFlight) {
            assertThat(each).failsWithin(Duration.ofSeconds(10));
        }
        mutex.release();
        permit.release();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (holder.inspect(name).waiters() > 0 || holder.inspect(name).isHeld()
                || holder.inspect(name + ":s").isHeld() || holder.inspect(name + ":s").waiters() > 0) {
            assertThat(System.nanoTime()).as("the closed client's waiters and grants are gone: %s, %s",
                    holder.inspect(name), holder.inspect(name + ":s")).isLessThan(deadline);
            Thread.sleep(50);
        }
        assertThat(holder.list(name + "*")).isEmpty();
    }
}
