package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A release that wakes one waiter (or hands it the lock) reaches that waiter's client alone, on
 * the client's own channel beside the lock's ({@code lib_wake.lua}), not every client that waits
 * on the lock; a waiter whose client does not listen there (an older version) still hears it on
 * the lock's channel.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WakeChannelsTest {

    private static RedisServer server;
    private static RedisClient lettuce;
    private final List<RedisLockClient> clients = new ArrayList<>();
    private StatefulRedisPubSubConnection<String, String> listener;
    private final BlockingQueue<String> heard = new LinkedBlockingQueue<>();

    @BeforeAll
    static void startServer() {
        server = RedisServer.builder().start();
        lettuce = RedisClient.create(server.uri());
    }

    @AfterAll
    static void stopServer() {
        lettuce.shutdown();
        server.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(RedisLockClient::close);
        clients.clear();
        if (listener != null) {
            listener.close();
        }
    }

    private RedisLockClient client() {
        RedisLockClient client = RedisLocks.connect(server.uri());
        clients.add(client);
        return client;
    }

    /** Listens on the lock's shared channel, as every client of an older version does. */
    private void listenOnTheSharedChannel(String name) {
        listener = lettuce.connectPubSub();
        listener.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                heard.add(message);
            }
        });
        listener.sync().subscribe(LockKeys.of(name).channel());
    }

    @Test
    void aMutexReleaseWakesTheOldestWaiterOnItsClientsChannelOnly() throws Exception {
        handOverTwiceBetweenThreeClients("wake:mutex", RedisLockClient::lock, "{wake:mutex}:waiters");
    }

    @Test
    void aFairLockHandoffReachesTheNextWaitersClientOnly() throws Exception {
        handOverTwiceBetweenThreeClients("wake:fair", RedisLockClient::fairLock, "{wake:fair}:queue");
    }

    /**
     * Client a holds, b and then c wait; a's release wakes (or hands over to) b, b's wakes c. Each
     * wake is one PUBLISH heard by one client: nothing on the shared channel.
     */
    private void handOverTwiceBetweenThreeClients(String name, BiFunction<RedisLockClient, String, DistributedLock> kind,
                                                  String queueKey) throws Exception {
        Function<RedisLockClient, DistributedLock> lockOf = client -> kind.apply(client, name);
        listenOnTheSharedChannel(name);
        Lease held = lockOf.apply(client()).acquire(Duration.ZERO);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            DistributedLock b = lockOf.apply(client());
            DistributedLock c = lockOf.apply(client());
            Future<Lease> first = pool.submit(() -> b.acquire(Duration.ofSeconds(20)));
            ServerProbe.awaitWaiters(server, queueKey, 1);
            Future<Lease> second = pool.submit(() -> c.acquire(Duration.ofSeconds(20)));
            ServerProbe.awaitWaiters(server, queueKey, 2);
            // A fair waiter queues before it subscribes: wait until both listen (and this test).
            awaitSubscribers(LockKeys.of(name).channel(), 3);
            long publishesBefore = ServerProbe.calls(server, "publish");

            held.release();
            first.get(10, TimeUnit.SECONDS).release();
            second.get(10, TimeUnit.SECONDS).release();

            assertThat(ServerProbe.calls(server, "publish") - publishesBefore).as("one publish per wake").isEqualTo(2);
            assertThat(heard.poll(200, TimeUnit.MILLISECONDS)).as("heard on the shared channel").isNull();
        } finally {
            pool.shutdownNow();
        }
    }

    private static void awaitSubscribers(String channel, long count) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (ServerProbe.subscribers(server, channel) != count) {
            assertThat(System.nanoTime()).as(count + " subscribers of " + channel).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    @Test
    void aPubSubConnectionResetResubscribesBothChannelsAndTheWaiterIsStillWokenOnItsOwn() throws Exception {
        String name = "wake:reset";
        String channel = LockKeys.of(name).channel();
        Lease held = client().lock(name).acquire(Duration.ZERO);
        // A minute between re-checks: only the release's message can wake the waiter in time.
        RedisLockClient waiterClient = RedisLocks.builder().uri(server.uri()).maxRecheck(Duration.ofMinutes(1)).connect();
        clients.add(waiterClient);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Lease> waiting = pool.submit(() -> waiterClient.lock(name).acquire(Duration.ofSeconds(20)));
            ServerProbe.awaitWaiters(server, "{wake:reset}:waiters", 1);
            awaitSubscribers(channel, 1);
            List<?> own = (List<?>) server.command("PUBSUB", "CHANNELS", channel + ":*");
            assertThat(own).as("the client's own channel").hasSize(1);

            server.command("CLIENT", "KILL", "TYPE", "pubsub");
            awaitSubscribers(channel, 1);
            awaitSubscribers((String) own.get(0), 1);
            long publishesBefore = ServerProbe.calls(server, "publish");
            listenOnTheSharedChannel(name);
            awaitSubscribers(channel, 2);

            held.release();

            waiting.get(5, TimeUnit.SECONDS).release();
            assertThat(ServerProbe.calls(server, "publish") - publishesBefore).as("one publish").isEqualTo(1);
            assertThat(heard.poll(200, TimeUnit.MILLISECONDS)).as("heard on the shared channel").isNull();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void withAKeyPrefixTheWakeGoesToTheClientsChannelBesideThePrefixedLocksChannel() throws Exception {
        String channel = LockKeys.of("lock:wake:prefixed").channel();
        RedisLockClient holderClient = RedisLocks.builder().uri(server.uri()).keyPrefix("lock:").connect();
        RedisLockClient waiterClient = RedisLocks.builder().uri(server.uri()).keyPrefix("lock:")
                .maxRecheck(Duration.ofMinutes(1)).connect();
        clients.add(holderClient);
        clients.add(waiterClient);
        listenOnTheSharedChannel("lock:wake:prefixed");
        Lease held = holderClient.fairLock("wake:prefixed").acquire(Duration.ZERO);
        CompletableFuture<Lease> waiting = waiterClient.fairLock("wake:prefixed").acquireAsync(Duration.ofSeconds(20))
                .toCompletableFuture();
        ServerProbe.awaitWaiters(server, LockKeys.of("lock:wake:prefixed").queue(), 1);
        awaitSubscribers(channel, 2);
        assertThat((List<?>) server.command("PUBSUB", "CHANNELS", channel + ":*")).as("the client's own channel")
                .hasSize(1);
        Thread.sleep(200);

        held.release();

        waiting.get(5, TimeUnit.SECONDS).release();
        assertThat(heard.poll(200, TimeUnit.MILLISECONDS)).as("heard on the shared channel").isNull();
    }

    @Test
    void aWaiterWhoseClientListensOnlyOnTheSharedChannelIsWokenThere() throws Exception {
        listenOnTheSharedChannel("wake:legacy");
        Lease held = client().lock("wake:legacy").acquire(Duration.ZERO);
        long expiry = System.currentTimeMillis() + 60_000;
        server.command("ZADD", "{wake:legacy}:waiters", Long.toString(expiry), "olderClientPrefix:1");

        held.release();

        assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("olderClientPrefix:1");
        assertThat(server.command("GET", "wake:legacy")).as("reserved for it").isEqualTo("~olderClientPrefix:1");
    }
}
