package dev.leasehold.redis;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.StaleTokenException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Verdict;
import dev.leasehold.testkit.history.Write;
import dev.leasehold.testkit.junit.FlushedRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Redis guard's script and API against a real redis-server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisFenceGuardTest {

    @RegisterExtension
    static final FlushedRedis server = FlushedRedis.perClass();
    private static RedisCommands<String, String> redis;
    private static RedisFenceGuard guard;

    @BeforeAll
    static void start() {
        redis = server.connection().sync();
        guard = RedisFenceGuard.using(server.connection());
    }

    @Test
    void eachWriteIsAdmittedForANewerOrEqualTokenAndRefusedForAnOlderOneWithoutWriting() {
        guard.set("stock:name", "first", 10);
        guard.set("stock:name", "again", 10);
        assertThatThrownBy(() -> guard.set("stock:name", "late", 9))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo("stock:name");
                    assertThat(e.token()).isEqualTo(9);
                    assertThat(e.highestAdmitted()).isEqualTo(10);
                });
        assertThat(redis.get("stock:name")).isEqualTo("again");

        assertThat(guard.hset("stock:h", "a", "1", 5)).isTrue();
        assertThat(guard.hset("stock:h", "a", "2", 6)).isFalse();
        assertThatThrownBy(() -> guard.hset("stock:h", "b", "x", 5)).isInstanceOf(StaleTokenException.class);
        assertThat(redis.hgetall("stock:h")).isEqualTo(Map.of("a", "2"));

        assertThat(guard.incrBy("stock:n", 5, 1)).isEqualTo(5);
        assertThat(guard.incrBy("stock:n", -2, 2)).isEqualTo(3);
        assertThatThrownBy(() -> guard.incrBy("stock:n", 100, 1)).isInstanceOf(StaleTokenException.class);
        assertThat(redis.get("stock:n")).isEqualTo("3");

        assertThat(guard.del("stock:n", 3)).isTrue();
        assertThat(guard.del("stock:n", 3)).isFalse();
        assertThatThrownBy(() -> guard.set("stock:n", "resurrected", 2)).isInstanceOf(StaleTokenException.class);
        assertThat(redis.exists("stock:n")).isZero();
        assertThat(guard.highestAdmitted("stock:n")).isEqualTo(3);
        assertThat(guard.highestAdmitted("stock:never")).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void tokensAbove2To53AreComparedExactly() {
        long big = (1L << 53) + 1; // as a double it equals 2^53, so a Lua number comparison would admit 2^53
        guard.set("big", "a", big);
        assertThatThrownBy(() -> guard.set("big", "b", big - 1)).isInstanceOf(StaleTokenException.class);
        guard.set("big", "c", Long.MAX_VALUE);
        assertThatThrownBy(() -> guard.set("big", "d", Long.MAX_VALUE - 1))
                .isInstanceOfSatisfying(StaleTokenException.class,
                        e -> assertThat(e.highestAdmitted()).isEqualTo(Long.MAX_VALUE));
        assertThat(redis.get("big")).isEqualTo("c");
        guard.set("small", "a", 0);
        guard.set("small", "b", 99);
        assertThatThrownBy(() -> guard.set("small", "c", 100 - 91)).isInstanceOf(StaleTokenException.class); // "9" > "99" as text
        assertThat(guard.incrBy("exact", Long.MAX_VALUE - 1, 1)).isEqualTo(Long.MAX_VALUE - 1); // exact above 2^53
    }

    @Test
    void theFenceSharesTheDataKeysClusterSlotAndExpiresAfterTheRetention() {
        for (String key : List.of("stock:42", "{user:1}:cart", "a{b}c")) {
            assertThat(SlotHash.getSlot(RedisFenceGuard.fenceKey(key))).as(key).isEqualTo(SlotHash.getSlot(key));
        }
        assertThat(RedisFenceGuard.fenceKey("order:1")).isNotEqualTo("{order:1}:fence"); // not the lock's token counter
        guard.withFenceRetention(Duration.ofSeconds(30)).set("kept", "v", 1);
        assertThat(redis.pttl(RedisFenceGuard.fenceKey("kept"))).isBetween(25_000L, 30_000L);
        assertThat(redis.ttl("kept")).isEqualTo(-1); // the data key's own expiry is the caller's
    }

    @Test
    void aFailedWriteOrAForeignFenceChangesNothing() {
        redis.lpush("list", "x");
        assertThatThrownBy(() -> guard.incrBy("list", 1, 7)).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("WRONGTYPE");
        assertThat(guard.highestAdmitted("list")).isEqualTo(Long.MIN_VALUE);

        redis.set(RedisFenceGuard.fenceKey("foreign"), "not-a-token");
        assertThatThrownBy(() -> guard.set("foreign", "v", 1)).isInstanceOf(LockUnavailableException.class);
        assertThat(redis.exists("foreign")).isZero();
    }

    /** Writing a key that is another key's guard fence would lower that fence: a stale writer would pass. */
    @Test
    void aDataKeyThatIsAnotherKeysGuardFenceIsRefused() {
        guard.set("order:1", "paid", 100);
        assertThatThrownBy(() -> guard.set(RedisFenceGuard.fenceKey("order:1"), "0", 200))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(":guard");
        assertThatThrownBy(() -> guard.set("order:1", "stale", 50)).isInstanceOf(StaleTokenException.class);
        guard.set("plain:guard", "v", 1); // no hash tag: no other key's fence
        assertThat(redis.get("order:1")).isEqualTo("paid");
    }

    @Test
    void badInputIsRejectedBeforeAnyCommand() {
        assertThatThrownBy(() -> guard.set(null, "v", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> guard.set(" ", "v", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> guard.set("k", null, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> guard.hset("k", null, "v", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> guard.set("k", "v", -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token");
        assertThatThrownBy(() -> guard.set("a}b", "v", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hash tag");
        assertThatThrownBy(() -> guard.withFenceRetention(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fenceRetention");
        assertThatThrownBy(() -> RedisFenceGuard.using(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(redis.dbsize()).isZero();
    }

    @Test
    void aDeadServerIsATypedError() {
        RedisServer doomed = RedisServer.builder().start();
        RedisURI uri = RedisURI.create(doomed.uri());
        uri.setTimeout(Duration.ofSeconds(1));
        RedisClient other = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> dead = other.connect()) {
            doomed.kill();
            assertThatThrownBy(() -> RedisFenceGuard.using(dead).set("k", "v", 1))
                    .isInstanceOf(LockUnavailableException.class);
        } finally {
            other.shutdown();
            doomed.close();
        }
    }

    @Test
    void racingWritersWithTokensOutOfOrderNeverHaveALowerTokenAdmittedAfterAHigherOne() throws Exception {
        int threads = 32;
        List<Long> tokens = new ArrayList<>(LongStream.rangeClosed(1, 2_000).map(t -> t + (1L << 53)).boxed().toList());
        Collections.shuffle(tokens);
        ConcurrentLinkedQueue<Long> queue = new ConcurrentLinkedQueue<>(tokens);
        List<Write> admitted = Collections.synchronizedList(new ArrayList<>());
        List<Long> refused = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                String writer = "writer-" + i;
                done.add(pool.submit(() -> {
                    start.await();
                    for (Long token = queue.poll(); token != null; token = queue.poll()) {
                        try {
                            // The new count is the write's position in the order the server admitted it.
                            long count = guard.incrBy("racing", 1, token);
                            admitted.add(new Write(writer, token, true, count - 1, count));
                        } catch (StaleTokenException e) {
                            refused.add(token);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(50, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        History history = new History();
        admitted.stream().sorted(Comparator.comparingLong(Write::after)).forEach(history::write);
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.staleWritesAdmitted()).as(verdict.toString()).isZero();
        assertThat(verdict.lostUpdates()).as(verdict.toString()).isZero();
        assertThat(refused).as("the race produced stale tokens").isNotEmpty();
        assertThat(admitted.size() + refused.size()).isEqualTo(tokens.size());
        assertThat(redis.get("racing")).isEqualTo(Integer.toString(admitted.size()));
        assertThat(guard.highestAdmitted("racing")).isEqualTo(
                admitted.stream().mapToLong(Write::token).max().orElseThrow());
    }
}
