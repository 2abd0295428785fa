package dev.leasehold.redlock;

import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisScript;
import dev.leasehold.testkit.junit.FlushedRedis;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Each node-side Lua script on its own, against a real server. */
class RedlockScriptsTest {

    @RegisterExtension
    static final FlushedRedis server = FlushedRedis.perClass();
    private final RedisAsyncCommands<String, String> commands = server.commands();
    private final RedlockScripts scripts = new RedlockScripts();
    /** The single-server scripts a node runs, called raw to see their exact replies. */
    private static final RedisScript ACQUIRE = RedisScript.load("/dev/leasehold/redis/acquire.lua");
    private static final RedisScript RENEW = RedisScript.load("/dev/leasehold/redis/renew.lua");
    private static final RedisScript RELEASE = RedisScript.load("/dev/leasehold/redis/release.lua");
    private final LockKeys keys = LockKeys.of("script:lock");

    private List<Object> acquire(String holder, long ttlMillis, String waiter) {
        return ACQUIRE.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.waiters()},
                holder, Long.toString(ttlMillis), "60000", waiter, "5000").join();
    }

    /** The counter fence.lua reports, as the decimal string it returns (exact above 2^53). */
    private long writeBack(long token) {
        return Long.parseLong(scripts.fence.<String>run(commands, ScriptOutputType.VALUE, new String[] {keys.fence()},
                Long.toString(token), "60000").join());
    }

    /** The granted token, which the script sends as a decimal string (exact above 2^53). */
    private static long token(List<Object> granted) {
        assertThat(granted.get(0)).isEqualTo(1L);
        return Long.parseLong((String) granted.get(1));
    }

    private long renew(String holder, long ttlMillis) {
        return RENEW.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock()},
                holder, Long.toString(ttlMillis)).join();
    }

    private long release(String holder, String waiter) {
        return RELEASE.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.waiters()},
                holder, waiter, keys.channel()).join();
    }

    @Test
    void acquireGrantsOnceAndAdvancesTheNodeCounterFromItsClock() {
        long microsBefore = System.currentTimeMillis() * 1000 - 5_000_000;
        List<Object> granted = acquire("holder-a", 5_000, "");
        assertThat(granted.get(0)).isEqualTo(1L);
        long counter = token(granted);
        assertThat(counter).as("server time in µs (5 s slack for clock offsets)").isGreaterThan(microsBefore);
        assertThat(server.get().command("GET", "script:lock")).isEqualTo("holder-a");
        assertThat((Long) server.get().command("PTTL", "script:lock")).isBetween(1L, 5_000L);
        assertThat(server.get().command("GET", "{script:lock}:fence")).isEqualTo(Long.toString(counter));
        assertThat((Long) server.get().command("PTTL", "{script:lock}:fence")).isBetween(1L, 60_000L);

        List<Object> held = acquire("holder-b", 5_000, "");
        assertThat(held.get(0)).isEqualTo(0L);
        assertThat((Long) held.get(1)).isBetween(1L, 5_000L);
        assertThat(server.get().command("GET", "{script:lock}:fence")).as("no token for a refused holder")
                .isEqualTo(Long.toString(counter));
    }

    @Test
    void aCounterAheadOfTheClockStillAdvancesByOne() {
        long ahead = System.currentTimeMillis() * 1000 + 3_600_000_000L;
        server.get().command("SET", "{script:lock}:fence", Long.toString(ahead));
        assertThat(token(acquire("holder-a", 5_000, ""))).isEqualTo(ahead + 1);
    }

    @Test
    void writeBackOnlyEverRaisesTheCounterAndKeepsItForTheRetention() {
        long counter = token(acquire("holder-a", 5_000, ""));
        long ahead = counter + 3_600_000_000L; // an hour ahead of this node's clock, as from a faster node
        assertThat(writeBack(ahead)).isEqualTo(ahead);
        assertThat(writeBack(counter)).as("a lower token never lowers it").isEqualTo(ahead);
        assertThat(server.get().command("GET", "{script:lock}:fence")).isEqualTo(Long.toString(ahead));
        assertThat((Long) server.get().command("PTTL", "{script:lock}:fence")).isBetween(1L, 60_000L);
        release("holder-a", "");
        assertThat(token(acquire("holder-b", 5_000, ""))).isEqualTo(ahead + 1);
    }

    @Test
    void countersAboveTwoToThe53AdvanceAndAreWrittenBackExactly() {
        long start = (1L << 53) + 1;
        server.get().command("SET", keys.fence(), Long.toString(start));
        assertThat(token(acquire("holder-a", 5_000, ""))).isEqualTo(start + 1);
        release("holder-a", "");
        assertThat(token(acquire("holder-b", 5_000, ""))).isEqualTo(start + 2);
        release("holder-b", "");

        long m = (1L << 53) + 11; // a maximum from another node, not representable as a double
        assertThat(writeBack(m)).isEqualTo(m);
        assertThat(server.get().command("GET", keys.fence())).isEqualTo(Long.toString(m));
        assertThat(writeBack(m - 1)).as("a lower token never lowers it").isEqualTo(m);
        assertThat(writeBack(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(server.get().command("GET", keys.fence())).isEqualTo(Long.toString(Long.MAX_VALUE));
        assertThat(writeBack(Long.MAX_VALUE - 1)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aNodeCounterAtTheLargestTokenRefusesTheGrantAndWritesNothing() {
        server.get().command("SET", keys.fence(), Long.toString(Long.MAX_VALUE - 1));
        assertThat(token(acquire("holder-a", 5_000, ""))).isEqualTo(Long.MAX_VALUE);
        release("holder-a", "");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> acquire("holder-b", 5_000, ""))
                .rootCause().hasMessage("LEASEHOLD_FENCE_EXHAUSTED " + keys.fence());
        assertThat(server.get().command("EXISTS", keys.lock())).isEqualTo(0L);
    }

    @Test
    void renewExtendsOnlyTheHoldersKey() {
        acquire("holder-a", 1_000, "");
        assertThat(renew("holder-b", 60_000)).isZero();
        assertThat((Long) server.get().command("PTTL", "script:lock")).isLessThanOrEqualTo(1_000L);
        assertThat(renew("holder-a", 60_000)).isEqualTo(1L);
        assertThat((Long) server.get().command("PTTL", "script:lock")).isGreaterThan(1_000L);
        server.get().command("DEL", "script:lock");
        assertThat(renew("holder-a", 60_000)).as("no key, nothing to extend").isZero();
        assertThat(server.get().command("EXISTS", "script:lock")).isEqualTo(0L);
    }

    @Test
    void releaseDeletesOnlyTheHoldersKeyAndPublishesOnlyWhenSomeoneWaits() throws Exception {
        StatefulRedisPubSubConnection<String, String> pubSub = server.client().connectPubSub();
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
            assertThat(server.get().command("GET", "script:lock")).isEqualTo("holder-a");
            assertThat(release("holder-a", "")).isEqualTo(1L);
            assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("nobody waited").isNull();

            acquire("holder-a", 5_000, "");
            assertThat(acquire("holder-b", 5_000, "waiter-b").get(0)).isEqualTo(0L);
            assertThat(release("holder-a", "")).isEqualTo(1L);
            assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(keys.channel());
            assertThat(acquire("holder-b", 5_000, "waiter-b").get(0)).as("a grant forgets the waiter").isEqualTo(1L);
            assertThat(server.get().command("ZCARD", keys.waiters())).isEqualTo(0L);
            assertThat(release("holder-b", "waiter-b")).isEqualTo(1L);
        } finally {
            pubSub.close();
        }
    }
}
