package dev.leasehold.redlock;

import dev.leasehold.redis.LockKeys;
import dev.leasehold.testkit.server.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Each node-side Lua script on its own, against a real server. */
class RedlockScriptsTest {

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisAsyncCommands<String, String> commands;
    private final RedlockScripts scripts = new RedlockScripts();
    private final LockKeys keys = LockKeys.of("script:lock");

    @BeforeAll
    static void start() {
        server = RedisServer.builder().start();
        client = RedisClient.create(server.uri());
        connection = client.connect();
        commands = connection.async();
    }

    @AfterAll
    static void stop() {
        connection.close();
        client.shutdown();
        server.close();
    }

    @BeforeEach
    void flush() {
        server.command("FLUSHALL");
    }

    private List<Object> acquire(String holder, long ttlMillis, String waiter) {
        return scripts.acquire.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.waiters()},
                holder, Long.toString(ttlMillis), "60000", waiter, "5000").join();
    }

    private long writeBack(long token) {
        return scripts.fence.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.fence()},
                Long.toString(token), "60000").join();
    }

    private long renew(String holder, long ttlMillis) {
        return scripts.renew.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock()},
                holder, Long.toString(ttlMillis)).join();
    }

    private long release(String holder, String waiter) {
        return scripts.release.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.waiters()},
                holder, waiter, keys.channel()).join();
    }

    @Test
    void acquireGrantsOnceAndAdvancesTheNodeCounterFromItsClock() {
        long microsBefore = System.currentTimeMillis() * 1000 - 5_000_000;
        List<Object> granted = acquire("holder-a", 5_000, "");
        assertThat(granted.get(0)).isEqualTo(1L);
        long counter = (Long) granted.get(1);
        assertThat(counter).as("server time in µs (5 s slack for clock offsets)").isGreaterThan(microsBefore);
        assertThat(server.command("GET", "script:lock")).isEqualTo("holder-a");
        assertThat((Long) server.command("PTTL", "script:lock")).isBetween(1L, 5_000L);
        assertThat(server.command("GET", "{script:lock}:fence")).isEqualTo(Long.toString(counter));
        assertThat((Long) server.command("PTTL", "{script:lock}:fence")).isBetween(1L, 60_000L);

        List<Object> held = acquire("holder-b", 5_000, "");
        assertThat(held.get(0)).isEqualTo(0L);
        assertThat((Long) held.get(1)).isBetween(1L, 5_000L);
        assertThat(server.command("GET", "{script:lock}:fence")).as("no token for a refused holder")
                .isEqualTo(Long.toString(counter));
    }

    @Test
    void aCounterAheadOfTheClockStillAdvancesByOne() {
        long ahead = System.currentTimeMillis() * 1000 + 3_600_000_000L;
        server.command("SET", "{script:lock}:fence", Long.toString(ahead));
        assertThat(acquire("holder-a", 5_000, "").get(1)).isEqualTo(ahead + 1);
    }

    @Test
    void writeBackOnlyEverRaisesTheCounterAndKeepsItForTheRetention() {
        long counter = (Long) acquire("holder-a", 5_000, "").get(1);
        long ahead = counter + 3_600_000_000L; // an hour ahead of this node's clock, as from a faster node
        assertThat(writeBack(ahead)).isEqualTo(ahead);
        assertThat(writeBack(counter)).as("a lower token never lowers it").isEqualTo(ahead);
        assertThat(server.command("GET", "{script:lock}:fence")).isEqualTo(Long.toString(ahead));
        assertThat((Long) server.command("PTTL", "{script:lock}:fence")).isBetween(1L, 60_000L);
        release("holder-a", "");
        assertThat(acquire("holder-b", 5_000, "").get(1)).isEqualTo(ahead + 1);
    }

    @Test
    void renewExtendsOnlyTheHoldersKey() {
        acquire("holder-a", 1_000, "");
        assertThat(renew("holder-b", 60_000)).isZero();
        assertThat((Long) server.command("PTTL", "script:lock")).isLessThanOrEqualTo(1_000L);
        assertThat(renew("holder-a", 60_000)).isEqualTo(1L);
        assertThat((Long) server.command("PTTL", "script:lock")).isGreaterThan(1_000L);
        server.command("DEL", "script:lock");
        assertThat(renew("holder-a", 60_000)).as("no key, nothing to extend").isZero();
        assertThat(server.command("EXISTS", "script:lock")).isEqualTo(0L);
    }

    @Test
    void releaseDeletesOnlyTheHoldersKeyAndPublishesOnlyWhenSomeoneWaits() throws Exception {
        StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub();
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        pubSub.addListener(new io.lettuce.core.pubsub.RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                messages.add(channel);
            }
        });
        pubSub.sync().subscribe(keys.channel());
        try {
            acquire("holder-a", 5_000, "");
            assertThat(release("holder-b", "")).isZero();
            assertThat(server.command("GET", "script:lock")).isEqualTo("holder-a");
            assertThat(release("holder-a", "")).isEqualTo(1L);
            assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("nobody waited").isNull();

            acquire("holder-a", 5_000, "");
            assertThat(acquire("holder-b", 5_000, "waiter-b").get(0)).isEqualTo(0L);
            assertThat(release("holder-a", "")).isEqualTo(1L);
            assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(keys.channel());
            assertThat(acquire("holder-b", 5_000, "waiter-b").get(0)).as("a grant forgets the waiter").isEqualTo(1L);
            assertThat(server.command("ZCARD", keys.waiters())).isEqualTo(0L);
            assertThat(release("holder-b", "waiter-b")).isEqualTo(1L);
        } finally {
            pubSub.close();
        }
    }
}
