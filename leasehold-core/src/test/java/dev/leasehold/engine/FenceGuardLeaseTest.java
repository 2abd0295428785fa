package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.FenceGuard;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The guards' lease overloads over engine leases: a lease its client already knows is lost (the
 * key broken, as {@code leasehold break} does, and the renewal found out) or released is refused
 * before its write runs, though its token is still the highest admitted.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FenceGuardLeaseTest {

    private final InMemoryLockProtocol protocol = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50)), "in-memory");
    private final InMemoryFenceGuard guard = new InMemoryFenceGuard();
    private final List<String> writes = new ArrayList<>();

    @AfterEach
    void close() {
        engine.close();
    }

    private DistributedLock lock(String name) {
        return engine.lock(name, LockOptions.watchdog(Duration.ofMillis(300)), protocol);
    }

    private Lease brokenAndKnownLost(String name) throws Exception {
        Lease lease = lock(name).acquire(Duration.ofSeconds(1));
        guard.admit("balance", lease, () -> writes.add("before the break"));
        protocol.expire(name);
        lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        return lease;
    }

    /** Failed before (the token was all a guard could take): the old holder's write was admitted. */
    @Test
    void aLeaseKnownLostIsRefusedThoughItsTokenIsStillTheHighest() throws Exception {
        Lease old = brokenAndKnownLost("broken");
        assertThatThrownBy(() -> guard.admit("balance", old, () -> writes.add("late")))
                .isInstanceOf(LeaseLostException.class).hasMessageContaining("another holder or no key");
        assertThat(writes).containsExactly("before the break");
        assertThat(guard.highestAdmitted("balance")).isEqualTo(old.token());
    }

    @Test
    void theInterfacesDefaultRefusesALostLeaseForEveryGuard() throws Exception {
        FenceGuard tokensOnly = new FenceGuard() {
            @Override
            public <T> T admit(String resource, long token, FencedWrite<T> write) {
                return guard.admit(resource, token, write);
            }

            @Override
            public long highestAdmitted(String resource) {
                return guard.highestAdmitted(resource);
            }
        };
        Lease old = brokenAndKnownLost("broken-default");
        assertThatThrownBy(() -> tokensOnly.admit("balance", old, () -> writes.add("late")))
                .isInstanceOf(LeaseLostException.class);
        assertThat(writes).containsExactly("before the break");

        Lease current = lock("broken-default").acquire(Duration.ofSeconds(1));
        assertThat(tokensOnly.admit("balance", current, () -> writes.add("new holder"))).isTrue();
        assertThat(guard.highestAdmitted("balance")).isEqualTo(current.token());
    }

    @Test
    void aReleasedLeaseIsRefusedAndANullOneIsBadInput() {
        Lease lease = lock("released").acquire(Duration.ofSeconds(1));
        assertThat(guard.admit("balance", lease, () -> "written")).isEqualTo("written");
        lease.release();
        assertThatThrownBy(() -> guard.admit("balance", lease, () -> writes.add("after release")))
                .isInstanceOf(LeaseLostException.class).hasMessageContaining("released");
        assertThatThrownBy(() -> guard.admit("balance", (Lease) null, () -> writes.add("null")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThat(writes).isEmpty();
    }

    /** The in-memory guard checks again inside the resource's atomic step, after waiting for another write. */
    @Test
    void aLossLearnedWhileWaitingForTheResourceRefusesTheWrite() throws Exception {
        Lease lease = lock("waiting").acquire(Duration.ofSeconds(1));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        CompletableFuture<Object> other = CompletableFuture.supplyAsync(() -> guard.admit("balance", 1, () -> {
            inside.countDown();
            await(leave);
            return null;
        }));
        assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> late = CompletableFuture.supplyAsync(() ->
                guard.admit("balance", lease, () -> writes.add("late")));
        protocol.expire("waiting");
        lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        leave.countDown();
        other.get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> late.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LeaseLostException.class);
        assertThat(writes).isEmpty();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
