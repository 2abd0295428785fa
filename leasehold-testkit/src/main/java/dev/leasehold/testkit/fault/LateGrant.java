package dev.leasehold.testkit.fault;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockClient;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An acquisition whose grant is answered after the lease's ttl while a rival holds the lock (a
 * paused link or a stalled client; each backend's test arranges it with its own faults): the lease
 * the late answer brings, if any, is never valid while the rival holds, and lease-scoped work never
 * runs on it.
 */
public final class LateGrant {

    /** How long the late answer may take to reach the caller once let through, on a loaded machine. */
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(20);

    /** A backend's way of having a grant answered after its ttl while a rival holds the lock. */
    @FunctionalInterface
    public interface Arrangement {

        /**
         * Starts {@code acquiring} on a lock of {@code name} with a 1 s ttl behind the test's faults,
         * keeps its answer from the caller past that ttl, lets a rival take the lock, then lets the
         * answer through.
         *
         * @return the rival's lease
         */
        Lease grantedAfterItsTtlWhileARivalHolds(String name, Consumer<DistributedLock> acquiring) throws Exception;
    }

    /** Admits {@code lease} to a write through the backend's fence guard; throws as the guard does. */
    @FunctionalInterface
    public interface Admission {
        void admit(Lease lease) throws Exception;
    }

    private LateGrant() {
    }

    /**
     * The late acquire either fails with a {@link LeaseholdException} or brings a lease with a lower
     * token than the rival's that is invalid, whose lost() completes, that {@code guard} refuses with
     * {@link LeaseLostException} and whose release is {@link ReleaseStatus#ALREADY_LOST}; either way
     * the rival still holds ({@code probe} is refused the lock) and its release is
     * {@link ReleaseStatus#RELEASED}.
     */
    public static void isNeverValidWhileTheRivalHolds(Arrangement arrangement, String name, LockClient probe,
                                                      Admission guard) throws Exception {
        CompletableFuture<Lease> acquire = new CompletableFuture<>();
        Lease rival = arrangement.grantedAfterItsTtlWhileARivalHolds(name, lock -> lock.acquireAsync(Duration.ofSeconds(10))
                .whenComplete((lease, error) -> settle(acquire, lease, error)));

        Lease late;
        try {
            late = acquire.get(ANSWER_WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            assertThat(failed.getCause()).isInstanceOf(LeaseholdException.class);
            late = null; // told it failed: nothing to check on its side
        }
        if (late != null) {
            assertThat(rival.token()).isGreaterThan(late.token());
            assertThat(late.isValid()).as("a lease whose grant came after its ttl").isFalse();
            assertThat(late.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).as("lost()").isNotNull();
            Lease stale = late;
            assertThatThrownBy(() -> guard.admit(stale)).isInstanceOf(LeaseLostException.class);
            assertThat(late.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        }
        Thread.sleep(200); // the background clean-up of the lost lease, if one runs
        assertThat(rival.isValid()).isTrue();
        assertThat(probe.lock(name).tryAcquire(Duration.ZERO)).as("still held by the rival").isEmpty();
        assertThat(rival.release()).isEqualTo(ReleaseStatus.RELEASED);
    }

    /**
     * Work handed a lease whose grant was answered after its ttl never runs: {@code call} and
     * {@code tryCall} (each on a thread of its own) and {@code callAsync}, each on a lock of its own
     * named after {@code name}, end with {@link LeaseLostException} or
     * {@link LockUnavailableException} without calling it ({@code tryCall} may also answer with its
     * {@code otherwise}, as when it is not granted in time).
     */
    public static void workNeverRuns(Arrangement arrangement, String name) throws Exception {
        AtomicInteger ran = new AtomicInteger();
        CompletableFuture<String> call = new CompletableFuture<>();
        Lease rival = arrangement.grantedAfterItsTtlWhileARivalHolds(name + "-call", lock -> onItsOwnThread(call,
                () -> lock.call(Duration.ofSeconds(10), () -> "ran " + ran.incrementAndGet())));
        CompletableFuture<String> callAsync = new CompletableFuture<>();
        Lease asyncRival = arrangement.grantedAfterItsTtlWhileARivalHolds(name + "-call-async",
                lock -> lock.callAsync(Duration.ofSeconds(10),
                        lease -> CompletableFuture.completedFuture("ran " + ran.incrementAndGet()))
                        .whenComplete((value, error) -> settle(callAsync, value, error)));
        CompletableFuture<String> tryCall = new CompletableFuture<>();
        Lease tryRival = arrangement.grantedAfterItsTtlWhileARivalHolds(name + "-try-call", lock -> onItsOwnThread(tryCall,
                () -> lock.tryCall(Duration.ofSeconds(10), () -> "ran " + ran.incrementAndGet(), () -> "otherwise")));

        for (CompletableFuture<String> work : List.of(call, callAsync)) {
            assertThatThrownBy(() -> work.get(ANSWER_WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOfAny(LeaseLostException.class, LockUnavailableException.class);
        }
        try {
            assertThat(tryCall.get(ANSWER_WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("otherwise");
        } catch (ExecutionException failed) {
            assertThat(failed.getCause()).isInstanceOfAny(LeaseLostException.class, LockUnavailableException.class);
        }
        assertThat(ran).as("work run under a lease granted after its ttl while a rival held the lock").hasValue(0);
        for (Lease held : List.of(rival, asyncRival, tryRival)) {
            assertThat(held.release()).isEqualTo(ReleaseStatus.RELEASED);
        }
    }

    /** Completes {@code outcome} with what {@code work} returns or throws, on a thread of its own. */
    private static void onItsOwnThread(CompletableFuture<String> outcome, Callable<String> work) {
        new Thread(() -> {
            try {
                outcome.complete(work.call());
            } catch (Throwable failed) {
                outcome.completeExceptionally(failed);
            }
        }).start();
    }

    private static <T> void settle(CompletableFuture<T> future, T value, Throwable error) {
        if (error != null) {
            future.completeExceptionally(error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error);
        } else {
            future.complete(value);
        }
    }
}
