package dev.leasehold.redis;

import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.testkit.junit.FlushedRedis;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** fair_acquire.lua and fair_release.lua on their own, against a real server. */
class RedisFairScriptsTest {

    @RegisterExtension
    static final FlushedRedis server = FlushedRedis.perClass();
    private final RedisAsyncCommands<String, String> commands = server.commands();
    private final RedisScripts scripts = new RedisScripts();
    private final LockKeys keys = LockKeys.of("fair:lock");
    private final String[] fairKeys = KindScripts.fairKeys(LockKeys.of("fair:lock"));
    private StatefulRedisPubSubConnection<String, String> pubSub;
    private final BlockingQueue<String> published = new LinkedBlockingQueue<>();

    @BeforeEach
    void flushAndListen() {
        pubSub = server.client().connectPubSub();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                published.add(message);
            }
        });
        pubSub.sync().subscribe(keys.channel());
    }

    @AfterEach
    void stopListening() {
        pubSub.close();
    }

    /** An attempt with a 5 s registration, stamped with a recognisable negative number (stamps are nanoTime values). */
    private List<Object> acquire(String holder, long ttlMillis) {
        return acquire(holder, ttlMillis, 5_000, stampOf(holder));
    }

    private List<Object> acquire(String holder, long ttlMillis, long registrationMillis, long stamp) {
        return scripts.fairAcquire.<List<Object>>run(commands, ScriptOutputType.MULTI, fairKeys, holder,
                Long.toString(ttlMillis), "60000", Long.toString(registrationMillis), Long.toString(stamp)).join();
    }

    private static long stampOf(String holder) {
        return -1_000_000_000_000L - holder.hashCode();
    }

    private long release(String holder) {
        return scripts.fairRelease.<Long>run(commands, ScriptOutputType.INTEGER, fairKeys, holder, "60000",
                keys.channel()).join();
    }

    private static long token(List<Object> granted) {
        assertThat(granted.get(0)).as("granted").isEqualTo(1L);
        return Long.parseLong((String) granted.get(1));
    }

    private String nextMessage() throws InterruptedException {
        String message = published.poll(5, TimeUnit.SECONDS);
        assertThat(message).as("a message on the release channel").isNotNull();
        return message;
    }

    private List<String> queue() {
        return ((List<?>) server.get().command("ZRANGE", keys.queue(), "0", "-1")).stream().map(String.class::cast).toList();
    }

    @Test
    void releasesHandTheLockToTheWaitersInArrivalOrderWithTheWaitersTokenAndStamp() throws Exception {
        long first = token(acquire("holder-a", 5_000));
        for (String waiter : List.of("holder-b", "holder-c", "holder-d")) {
            List<Object> held = acquire(waiter, 7_000);
            assertThat(held.get(0)).isEqualTo(0L);
            assertThat((Long) held.get(1)).as("the holder's pttl").isBetween(1L, 5_000L);
        }
        assertThat(queue()).containsExactly("holder-b", "holder-c", "holder-d");

        long previous = first;
        String holder = "holder-a";
        for (String next : List.of("holder-b", "holder-c", "holder-d")) {
            assertThat(release(holder)).isEqualTo(1L);
            assertThat(server.get().command("GET", keys.lock())).as("handed over in the script").isEqualTo(next);
            assertThat((Long) server.get().command("PTTL", keys.lock())).as("the waiter's own ttl").isBetween(6_000L, 7_000L);
            String[] message = nextMessage().split(" ");
            assertThat(message[0]).isEqualTo(next);
            assertThat(Long.parseLong(message[2])).as("the stamp of its last attempt").isEqualTo(stampOf(next));
            long handed = Long.parseLong(message[1]);
            assertThat(handed).isGreaterThan(previous);
            assertThat(server.get().command("GET", keys.fence())).isEqualTo(message[1]);
            // The waiter's next attempt (say its notification was lost) finds the same token.
            assertThat(token(acquire(next, 7_000))).isEqualTo(handed);
            previous = handed;
            holder = next;
        }
        assertThat(release(holder)).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", keys.lock(), keys.queue(), keys.queueInfo())).isEqualTo(0L);
        assertThat(published.poll(100, TimeUnit.MILLISECONDS)).as("nobody waits: no message").isNull();
    }

    @Test
    void aNewcomerNeverJumpsTheQueueOfAFreeLock() {
        token(acquire("holder-a", 5_000));
        acquire("holder-b", 5_000);
        server.get().command("DEL", keys.lock());
        List<Object> newcomer = acquire("holder-c", 5_000);
        assertThat(newcomer.get(0)).as("b arrived first").isEqualTo(0L);
        assertThat((Long) newcomer.get(1)).as("b's registration left").isBetween(4_000L, 5_000L);
        assertThat(token(acquire("holder-b", 5_000))).isPositive();
        assertThat(queue()).containsExactly("holder-c");
    }

    @Test
    void theArrivalOrderIsTheServersEvenWhenItsClockIsBehindTheTail() {
        token(acquire("holder-a", 5_000));
        acquire("holder-b", 5_000);
        // A tail far in the future, as after the server clock stepped back: arrival still decides.
        server.get().command("ZADD", keys.queue(), "9000000000000000", "holder-b");
        acquire("holder-c", 5_000);
        assertThat(queue()).containsExactly("holder-b", "holder-c");
        assertThat(server.get().command("ZSCORE", keys.queue(), "holder-c")).isEqualTo("9000000000000001");
    }

    @Test
    void aWaiterWhoseRegistrationExpiredIsSkipped() throws Exception {
        token(acquire("holder-a", 5_000));
        acquire("holder-dead", 5_000, 50, stampOf("holder-dead"));
        acquire("holder-c", 5_000);
        Thread.sleep(100);
        release("holder-a");
        assertThat(nextMessage()).startsWith("holder-c ");
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("holder-c");
        assertThat(queue()).containsExactly("holder-c");
        assertThat(server.get().command("HEXISTS", keys.queueInfo(), "holder-dead")).isEqualTo(0L);
    }

    @Test
    void aHandoffNobodyPickedUpEndsWithItsKeyAndTheNextWaiterGoesOn() throws Exception {
        token(acquire("holder-a", 5_000));
        acquire("holder-b", 50, 5_000, stampOf("holder-b"));
        acquire("holder-c", 5_000);
        release("holder-a");
        assertThat(nextMessage()).startsWith("holder-b ");
        Thread.sleep(100);
        assertThat(server.get().command("EXISTS", keys.lock())).as("b's key expired").isEqualTo(0L);
        assertThat(token(acquire("holder-c", 5_000))).as("b's handoff is over, its place too").isPositive();
        assertThat(server.get().command("EXISTS", keys.queue(), keys.queueInfo())).isEqualTo(0L);
    }

    @Test
    void abandoningAWaiterTheLockWasHandedToPassesItOn() throws Exception {
        token(acquire("holder-a", 5_000));
        acquire("holder-b", 5_000);
        acquire("holder-c", 5_000);
        release("holder-a");
        long handedToB = Long.parseLong(nextMessage().split(" ")[1]);
        assertThat(release("holder-b")).as("abandon: b held it").isEqualTo(1L);
        String[] message = nextMessage().split(" ");
        assertThat(message[0]).isEqualTo("holder-c");
        assertThat(Long.parseLong(message[1])).isGreaterThan(handedToB);
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("holder-c");
        assertThat(queue()).containsExactly("holder-c");

        acquire("holder-d", 5_000);
        assertThat(release("holder-d")).as("abandon: d only waited").isZero();
        assertThat(queue()).containsExactly("holder-c");
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("holder-c");
    }

    @Test
    void releaseByAnotherHolderChangesNothing() {
        token(acquire("holder-a", 5_000));
        acquire("holder-b", 5_000);
        assertThat(release("intruder")).isZero();
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("holder-a");
        assertThat(queue()).containsExactly("holder-b");
    }

    @Test
    void everyKeyHasATtlCoveringItsLongestEntry() {
        token(acquire("holder-a", 5_000));
        acquire("holder-b", 5_000, 30_000, 1);
        acquire("holder-c", 5_000, 50, 2);
        assertThat(ServerProbe.keysWithoutTtl(server.get())).isEmpty();
        assertThat((Long) server.get().command("PTTL", keys.queue())).isGreaterThan(29_000L);
        assertThat((Long) server.get().command("PTTL", keys.queueInfo())).isGreaterThan(29_000L);
        release("holder-a");
        assertThat(ServerProbe.keysWithoutTtl(server.get())).isEmpty();
    }

    @Test
    void queueKeysOfAnotherTypeFailTheAcquireAndWriteNothing() {
        server.get().command("HSET", keys.queue(), "x", "1");
        assertThatThrownBy(() -> acquire("holder-a", 5_000))
                .rootCause().hasMessage("LEASEHOLD_FOREIGN_TYPE hash " + keys.queue());
        server.get().command("DEL", keys.queue());
        server.get().command("SET", keys.queueInfo(), "x");
        assertThatThrownBy(() -> acquire("holder-a", 5_000))
                .rootCause().hasMessage("LEASEHOLD_FOREIGN_TYPE string " + keys.queueInfo());
        server.get().command("DEL", keys.queueInfo());
        server.get().command("RPUSH", keys.lock(), "x");
        assertThatThrownBy(() -> acquire("holder-a", 5_000))
                .rootCause().hasMessage("LEASEHOLD_FOREIGN_TYPE list " + keys.lock());
        assertThat(server.get().command("EXISTS", keys.fence(), keys.queue(), keys.queueInfo())).isEqualTo(0L);
        assertThat(release("holder-a")).as("a list is not ours").isZero();
        assertThat(server.get().command("TYPE", keys.lock())).isEqualTo("list");
    }

    @Test
    void releaseWithQueueKeysOfAnotherTypeStillFreesTheLockAndWakesEveryone() throws Exception {
        token(acquire("holder-a", 5_000));
        server.get().command("SET", keys.queue(), "not-a-queue");
        assertThat(release("holder-a")).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", keys.lock())).isEqualTo(0L);
        assertThat(nextMessage()).isEqualTo("*");
        assertThat(server.get().command("GET", keys.queue())).isEqualTo("not-a-queue");
    }

    @Test
    void aFenceThatCannotIssueATokenWakesTheWaiterInsteadOfHandingOver() throws Exception {
        token(acquire("holder-a", 5_000));
        acquire("holder-b", 5_000);
        server.get().command("SET", keys.fence(), Long.toString(Long.MAX_VALUE));
        assertThat(release("holder-a")).isEqualTo(1L);
        assertThat(nextMessage()).isEqualTo("holder-b");
        assertThat(server.get().command("EXISTS", keys.lock())).as("no lock without a token").isEqualTo(0L);
        assertThatThrownBy(() -> acquire("holder-b", 5_000))
                .rootCause().hasMessage("LEASEHOLD_FENCE_EXHAUSTED " + keys.fence());
    }

    @Test
    void aFairLockAndAMutexOfTheSameNameExcludeEachOther() {
        token(acquire("holder-a", 5_000));
        assertThat(mutexAcquire("mutex-holder")).isInstanceOf(MutexScripts.Answer.Held.class);
        release("holder-a");
        assertThat(((MutexScripts.Answer.Granted) mutexAcquire("mutex-holder")).token()).isPositive();
        assertThat(acquire("holder-b", 5_000).get(0)).isEqualTo(0L);
    }

    private MutexScripts.Answer mutexAcquire(String holder) {
        return scripts.mutex.acquire(commands, keys, holder, Duration.ofSeconds(5), Duration.ofMinutes(1), null,
                Duration.ofSeconds(5)).join();
    }
}
