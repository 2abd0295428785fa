package dev.leasehold.shedlock;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every ShedLock provider must do (the behaviours ShedLock's own provider integration tests
 * check), and what Leasehold adds: the lease, its token and its loss, reachable from the job. Each
 * backend runs it on a real server.
 */
abstract class LockProviderContract extends ProviderFixture {

    @Test
    void lockHoldsItAgainstOtherClientsUntilUnlocked() {
        SimpleLock lock = taken(first.lock(config(name)));
        assertThat(isLocked(name)).isTrue();
        lock.unlock();
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void lockIsANonReentrantTryThatReturnsEmptyWhileHeld() {
        SimpleLock lock = taken(first.lock(config(name)));
        assertThat(first.lock(config(name))).as("same provider, same thread: not reentrant").isEmpty();
        assertThat(second.lock(config(name))).as("another instance").isEmpty();
        lock.unlock();
        taken(second.lock(config(name))).unlock();
    }

    @Test
    void locksOfTwoNamesAreIndependent() {
        SimpleLock one = taken(first.lock(config(name)));
        SimpleLock other = taken(first.lock(config(name + "-other")));
        one.unlock();
        assertThat(isLocked(name + "-other")).isTrue();
        other.unlock();
        assertThat(isLocked(name + "-other")).isFalse();
    }

    @Test
    void lockCanBeTakenRightAfterUnlockAgainAndAgain() {
        for (int i = 0; i < 30; i++) {
            LeaseholdLockProvider taker = i % 2 == 0 ? first : second;
            Optional<SimpleLock> got = taker.lock(config(name));
            assertThat(got).as("round %d", i).isPresent();
            SimpleLock lock = got.get();
            assertThat(first.lock(config(name))).as("round %d", i).isEmpty();
            assertThat(second.lock(config(name))).as("round %d", i).isEmpty();
            lock.unlock();
        }
    }

    @Test
    void lockAtMostForFreesTheLockForAnotherClientWhenItPasses() {
        SimpleLock expired = taken(first.lock(config(name, Duration.ofMillis(50), Duration.ZERO)));
        sleep(Duration.ofMillis(100));
        assertThat(isLocked(name)).isFalse();
        taken(second.lock(config(name, Duration.ofMillis(50), Duration.ZERO))).unlock();
        expired.unlock();
    }

    @Test
    void lockAtMostForOfAFewMillisecondsIsHeldForTheMinimumTtlThenFree() {
        SimpleLock lock = taken(first.lock(config(name, Duration.ofMillis(3), Duration.ZERO)));
        assertThat(leaseOf(lock).remaining()).isLessThanOrEqualTo(LockOptions.MIN_TTL);
        sleep(LockOptions.MIN_TTL.multipliedBy(2));
        taken(second.lock(config(name, Duration.ofMillis(3), Duration.ZERO))).unlock();
        lock.unlock();
    }

    @Test
    void lockAtMostForLongerThanTheLongestLeaseIsRefused() {
        assertThatThrownBy(() -> first.lock(config(name, LockOptions.MAX_TTL.plusSeconds(1), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor").hasMessageContaining("MAX_TTL");
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void unlockAfterExpiryIsASilentNoOpThatLeavesTheNextHolderAlone() {
        SimpleLock late = taken(first.lock(config(name, Duration.ofMillis(20), Duration.ZERO)));
        sleep(Duration.ofMillis(60));
        SimpleLock next = taken(second.lock(config(name)));
        late.unlock();
        assertThat(leaseOf(next).isValid()).isTrue();
        assertThat(isLocked(name)).isTrue();
        next.unlock();
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void extendKeepsTheLockPastItsFirstLockAtMostFor() {
        SimpleLock lock = taken(first.lock(config(name, Duration.ofMillis(600), Duration.ZERO)));
        SimpleLock extended = taken(lock.extend(Duration.ofSeconds(10), Duration.ZERO));
        assertThat(leaseOf(extended).token()).isEqualTo(leaseOf(lock).token());
        sleep(Duration.ofMillis(750));
        assertThat(isLocked(name)).isTrue();
        extended.unlock();
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void extendCanBeRepeatedOnEachNewLock() {
        SimpleLock lock = taken(first.lock(config(name, Duration.ofMillis(600), Duration.ZERO)));
        for (int i = 0; i < 3; i++) {
            lock = taken(lock.extend(Duration.ofSeconds(10), Duration.ZERO));
        }
        sleep(Duration.ofMillis(750));
        assertThat(isLocked(name)).isTrue();
        lock.unlock();
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void theOldLockIsInvalidAfterAnExtend() {
        SimpleLock lock = taken(first.lock(config(name)));
        SimpleLock extended = taken(lock.extend(Duration.ofSeconds(10), Duration.ZERO));
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        assertThat(isLocked(name)).as("the old lock's failed calls touched nothing").isTrue();
        extended.unlock();
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void extendOfAnUnlockedLockThrowsAndRevivesNothing() {
        SimpleLock lock = taken(first.lock(config(name)));
        lock.unlock();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void extendAfterLockAtMostForIsEmptyEvenBelowTheMinimumTtl() {
        SimpleLock lock = taken(first.lock(config(name, Duration.ofMillis(2), Duration.ZERO)));
        sleep(Duration.ofMillis(4));
        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        // Let go by the failed extend, or (if the lease ran out meanwhile, a loaded machine's sleep
        // being longer) by the server once the rounded-up minimum passed.
        sleep(LockOptions.MIN_TTL);
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void extendOfAnExpiredLockIsEmpty() {
        SimpleLock lock = taken(first.lock(config(name, Duration.ofMillis(30), Duration.ZERO)));
        sleep(Duration.ofMillis(80));
        assertThat(leaseOf(lock).isValid()).isFalse();
        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void extendOfALockTakenOverIsEmptyAndLeavesTheNewHolderAlone() {
        SimpleLock late = taken(first.lock(config(name, Duration.ofMillis(20), Duration.ZERO)));
        sleep(Duration.ofMillis(60));
        SimpleLock next = taken(second.lock(config(name)));
        assertThat(late.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertThat(leaseOf(next).isValid()).isTrue();
        assertThat(leaseOf(next).token()).isGreaterThan(leaseOf(late).token());
        assertThat(isLocked(name)).isTrue();
        next.unlock();
    }

    @Test
    void extendWithBadDurationsThrowsAndLeavesTheLockUsable() {
        SimpleLock lock = taken(first.lock(config(name)));
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockAtLeastFor");
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(-1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        lock.unlock();
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void extendWithLockAtLeastForKeepsTheLockThatLongAfterAnEarlyUnlock() {
        SimpleLock lock = taken(first.lock(config(name)));
        SimpleLock extended = taken(lock.extend(Duration.ofSeconds(10), Duration.ofMillis(800)));
        long extendedAt = System.nanoTime();
        extended.unlock();
        assertThat(second.lock(config(name))).as("held until lockAtLeastFor after the extend").isEmpty();
        sleep(Duration.ofMillis(800 + 300).minusNanos(System.nanoTime() - extendedAt));
        taken(second.lock(config(name))).unlock();
    }

    @Test
    void theJobFindsItsLeaseAndTokenOnItsThread() {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(first);
        AtomicReference<Lease> seen = new AtomicReference<>();
        assertThat(LeaseholdLockProvider.currentLease()).isEmpty();
        executor.executeWithLock((Runnable) () -> {
            Lease lease = LeaseholdLockProvider.currentLease().orElseThrow();
            seen.set(lease);
            assertThat(lease.lockName()).isEqualTo(name);
            assertThat(lease.isValid()).isTrue();
            executor.executeWithLock((Runnable) () -> assertThat(LeaseholdLockProvider.currentLease().orElseThrow()
                    .lockName()).isEqualTo(name + "-inner"), config(name + "-inner"));
            assertThat(LeaseholdLockProvider.currentLease()).containsSame(lease);
            LockExtender.extendActiveLock(Duration.ofSeconds(10), Duration.ZERO);
            assertThat(LeaseholdLockProvider.currentLease()).as("the extended lock, same lease").containsSame(lease);
        }, config(name));
        assertThat(LeaseholdLockProvider.currentLease()).isEmpty();
        assertThat(seen.get().isValid()).as("released when the job ended").isFalse();
        assertThat(isLocked(name)).isFalse();
        assertThat(isLocked(name + "-inner")).isFalse();
    }

    /** As ShedLock's KeepAliveLockProvider does: the job runs on one thread, its lock is extended from another. */
    @Test
    void theJobKeepsItsLeaseWhenItsLockIsExtendedFromAnotherThread() throws Exception {
        SimpleLock lock = taken(first.lock(config(name, Duration.ofSeconds(2), Duration.ZERO)));
        Lease lease = LeaseholdLockProvider.currentLease().orElseThrow();
        SimpleLock extended = CompletableFuture.supplyAsync(() -> taken(lock.extend(Duration.ofSeconds(10), Duration.ZERO)))
                .get(10, TimeUnit.SECONDS);
        assertThat(LeaseholdLockProvider.currentLease()).containsSame(lease);
        CompletableFuture.runAsync(extended::unlock).get(10, TimeUnit.SECONDS);
        assertThat(LeaseholdLockProvider.currentLease()).as("its last lock was unlocked").isEmpty();
        assertThat(isLocked(name)).isFalse();
    }

    @Test
    void tokensRiseFromRunToRunAcrossInstances() {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            new DefaultLockingTaskExecutor(i % 2 == 0 ? first : second).executeWithLock(
                    (Runnable) () -> tokens.add(LeaseholdLockProvider.currentLease().orElseThrow().token()), config(name));
        }
        assertThat(tokens).hasSize(6).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aJobThatOutrunsLockAtMostForSeesItsLeaseLost() throws Exception {
        AtomicReference<LeaseLostException> loss = new AtomicReference<>();
        new DefaultLockingTaskExecutor(first).executeWithLock((Runnable) () -> {
            Lease lease = LeaseholdLockProvider.currentLease().orElseThrow();
            try {
                loss.set(lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            assertThat(lease.isValid()).isFalse();
            // The local deadline comes first (drift); the server frees the lock once lockAtMostFor has passed.
            sleep(Duration.ofMillis(100));
            taken(second.lock(config(name))).unlock();
        }, config(name, Duration.ofMillis(100), Duration.ZERO));
        assertThat(loss.get()).isNotNull();
        assertThat(loss.get().getMessage()).contains(name);
    }

    @Test
    void twoInstancesNeverRunTheSameJobAtOnce() throws Exception {
        new JobFuzz(first, second, Duration.ZERO).run();
    }

    @Test
    void anyNonBlankNameTheBackendCanStoreWorksUnchanged() {
        List<String> names = new ArrayList<>();
        for (String each : List.of("a", "A", "order:123", "with space", "{tag}rest", "a{b}c{d}", "tab\tand\nnewline",
                "%_*?[]'\";--", "ünïcødé ✓ 锁 🔒")) {
            names.add(name + "/" + each);
        }
        names.add(name + "/" + "x".repeat(1024 - name.length() - 1));
        List<SimpleLock> locks = new ArrayList<>();
        for (String each : names) {
            SimpleLock lock = taken(first.lock(config(each)));
            locks.add(lock);
            assertThat(second.lock(config(each))).as(each).isEmpty();
            assertThat(leaseOf(lock).lockName()).isEqualTo(each);
        }
        for (String each : names) {
            assertThat(isLocked(each)).as(each).isTrue();
        }
        assertThat(isLocked(name + "/a ")).as("names that differ by one character are different locks").isFalse();
        locks.forEach(SimpleLock::unlock);
        for (String each : names) {
            assertThat(isLocked(each)).as(each).isFalse();
        }
    }

    @Test
    void namesTheBackendCannotStoreAreRefusedWithTheReason() {
        for (String refused : refusedNames()) {
            assertThatThrownBy(() -> first.lock(config(refused)))
                    .as("%s", refused.codePoints().mapToObj(Integer::toHexString).toList())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lock name");
        }
    }

    /** Non-empty ShedLock names this backend refuses. */
    protected List<String> refusedNames() {
        return List.of(" ", "\t\n", "lone \uD800 surrogate", "x".repeat(1025));
    }
}
