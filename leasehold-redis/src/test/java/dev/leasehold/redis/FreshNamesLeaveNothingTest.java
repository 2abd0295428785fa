package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.Eventually;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service that locks a million distinct names a day (one per order, per job run) must not grow
 * with them: once a name's lease is released, the client keeps nothing of it and the server keeps
 * only the name's fence key, until the fence retention passes. Checked for every kind, for the
 * {@code asJavaLock()} view and for names two clients waited on (mutex and fair lock): every lock object, lease and lock
 * name string the client was given or made is collectable after the release (a weak reference to
 * each is cleared by a collection, so no map, timer or subscription of the client still reaches it),
 * the client's own counters are back to zero, and no key of those names is left on the server once
 * the fence retention and the waiters' registrations ran out. (A Java view's registration is dropped
 * at the client's next view lookup after the view was collected, so for views the view is checked.)
 *
 * <p>The name strings checked are the client's own ({@code lock.name()}, the key every structure of
 * the client is keyed by), so a queue, registry or cache that keeps a name after its last lease
 * fails this test even if it exposes no counter: a local queue never removed, or Java views held
 * strongly, did.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FreshNamesLeaveNothingTest {

    private static final Duration RETENTION = Duration.ofSeconds(1);
    private static final int NAMES_PER_KIND = 40;

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    /** A client whose waiter registrations and release subscriptions end within seconds. */
    private static RedisLockClient client() {
        return RedisLocks.builder().uri(server.get().uri()).fenceRetention(RETENTION).maxRecheck(Duration.ofMillis(100))
                .connect();
    }

    /** What the client was given per name, held only weakly, and what each was. */
    private final List<WeakReference<Object>> handedOut = new ArrayList<>();
    private final List<String> described = new ArrayList<>();

    private void track(Object object) {
        handedOut.add(new WeakReference<>(object));
        described.add(object.getClass().getSimpleName() + " " + object);
    }

    @Test
    void releasedNamesLeaveNoStateInTheClientAndOnlyFenceKeysUntilTheRetentionOnTheServer() throws Exception {
        LockOptions options = LockOptions.watchdog(Duration.ofSeconds(10));
        try (RedisLockClient client = client(); RedisLockClient other = client()) {
            lockEach(client, "fresh:mutex:", name -> client.lock(name, options));
            lockEach(client, "fresh:fair:", name -> client.fairLock(name, options));
            lockEach(client, "fresh:read:", name -> client.readWriteLock(name, options).readLock());
            lockEach(client, "fresh:write:", name -> client.readWriteLock(name, options).writeLock());
            lockEach(client, "fresh:permit:", name -> client.lockOf(LockKind.permits(2), name, options));
            lockEachView(client, options);
            for (int i = 0; i < NAMES_PER_KIND / 4; i++) {
                waitedOn(client.lock("fresh:waited:" + i, options), other.lock("fresh:waited:" + i, options));
                waitedOn(client.fairLock("fresh:fair-waited:" + i, options),
                        other.fairLock("fresh:fair-waited:" + i, options));
            }

            assertThat(eventuallyReachable()).as("objects of released names the client still reaches").isEmpty();
            for (RedisLockClient each : List.of(client, other)) {
                assertThat(each.heldLeases()).isZero();
                assertThat(each.activeLockNames()).isZero();
                eventually(() -> each.pendingTimers() == 0 && each.activeSubscriptions() == 0,
                        "no timer or subscription left");
            }
        }
        eventually(() -> ServerProbe.keys(server.get()).stream().noneMatch(key -> key.contains("fresh:")),
                "every key of the names expired after the fence retention and the registrations");
    }

    private void lockEach(RedisLockClient client, String prefix, Function<String, DistributedLock> kind) {
        for (int i = 0; i < NAMES_PER_KIND; i++) {
            DistributedLock lock = kind.apply(prefix + i);
            Lease lease = lock.acquire(Duration.ofSeconds(5));
            track(lock);
            track(lease);
            track(lock.name());
            lease.release();
        }
    }

    private void lockEachView(RedisLockClient client, LockOptions options) {
        for (int i = 0; i < NAMES_PER_KIND; i++) {
            Lock view = client.lock("fresh:java:" + i, options).asJavaLock();
            view.lock();
            view.unlock();
            track(view);
        }
    }

    /**
     * One client holds the name while the other waits on it (subscribed, registered: the mutex's
     * waiters set, the fair lock's queue), then takes it.
     */
    private void waitedOn(DistributedLock held, DistributedLock waiting) throws Exception {
        Lease first = held.acquire(Duration.ofSeconds(5));
        CompletableFuture<Lease> second = waiting.acquireAsync(Duration.ofSeconds(10));
        String prefix = "{" + held.name() + "}";
        eventually(() -> (Long) server.get().command("ZCARD", prefix + ":waiters") + (Long) server.get().command("ZCARD",
                prefix + ":queue") > 0, "the second client waits on the server");
        first.release();
        Lease next = second.get(10, TimeUnit.SECONDS);
        next.release();
        for (Object each : new Object[] {held, first, waiting, next, held.name(), waiting.name()}) {
            track(each);
        }
    }

    /** The tracked objects still reachable after collections for up to 30 s (lingering subscriptions end meanwhile). */
    private List<String> eventuallyReachable() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> reachable;
        do {
            System.gc();
            Thread.sleep(50);
            reachable = new ArrayList<>();
            for (int i = 0; i < handedOut.size(); i++) {
                if (handedOut.get(i).get() != null) {
                    reachable.add(described.get(i));
                }
            }
        } while (!reachable.isEmpty() && System.nanoTime() - deadline < 0);
        return reachable;
    }

    private static void eventually(BooleanSupplier condition, String what) {
        Eventually.eventually(condition, what, Duration.ofSeconds(30));
    }
}
