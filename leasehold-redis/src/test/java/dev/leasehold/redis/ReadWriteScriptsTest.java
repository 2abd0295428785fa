package dev.leasehold.redis;

import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.testkit.junit.FlushedRedis;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The read-write lock's scripts on their own, against a real server. */
class ReadWriteScriptsTest {

    private static final long TTL = 5_000;
    private static final long REGISTRATION = 5_000;

    @RegisterExtension
    static final FlushedRedis server = FlushedRedis.perClass();
    private final RedisAsyncCommands<String, String> commands = server.commands();
    private static StatefulRedisPubSubConnection<String, String> pubSub;
    private static final BlockingQueue<String> published = new LinkedBlockingQueue<>();
    private final RedisScripts scripts = new RedisScripts();
    private final LockKeys keys = LockKeys.of("rw:lock");

    @BeforeAll
    static void start() {
        pubSub = server.client().connectPubSub();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                published.add(message);
            }
        });
        pubSub.sync().subscribe(LockKeys.of("rw:lock").channel());
    }

    @AfterAll
    static void stop() {
        pubSub.close();
    }

    @BeforeEach
    void flush() {
        published.clear();
    }

    private List<Object> read(String holder, String waiter) {
        return read(holder, TTL, waiter);
    }

    private List<Object> read(String holder, long ttl, String waiter) {
        return scripts.readAcquire.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.readers(), keys.writers(), keys.waiters()},
                holder, Long.toString(ttl), "60000", waiter, Long.toString(REGISTRATION)).join();
    }

    private List<Object> write(String holder) {
        return write(holder, REGISTRATION);
    }

    private List<Object> write(String holder, long registration) {
        return scripts.writeAcquire.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.readers(), keys.writers()},
                holder, Long.toString(TTL), "60000", Long.toString(registration)).join();
    }

    private long readRelease(String holder, String waiter) {
        return scripts.readRelease.<Long>run(commands, ScriptOutputType.INTEGER,
                new String[] {keys.readers(), keys.writers(), keys.waiters()}, holder, waiter, keys.channel()).join();
    }

    private long writeRelease(String holder, String waiter) {
        return scripts.writeRelease.<Long>run(commands, ScriptOutputType.INTEGER,
                new String[] {keys.lock(), keys.writers(), keys.waiters()}, holder, waiter, keys.channel()).join();
    }

    private static long token(List<Object> reply) {
        assertThat(reply.get(0)).as("granted").isEqualTo(1L);
        return Long.parseLong((String) reply.get(1));
    }

    private static long blockedFor(List<Object> reply) {
        assertThat(reply.get(0)).as("blocked").isEqualTo(0L);
        return (Long) reply.get(1);
    }

    /** The next message on the lock's channel, or null if none comes within a short while. */
    private static String nextMessage() throws InterruptedException {
        return published.poll(500, TimeUnit.MILLISECONDS);
    }

    @Test
    void readersShareAndEachGetsAHigherTokenFromTheNamesSequence() {
        long first = token(read("reader-a", ""));
        long second = token(read("reader-b", ""));
        assertThat(second).isGreaterThan(first);
        assertThat(server.get().command("GET", keys.fence())).isEqualTo(Long.toString(second));
        assertThat(server.get().command("ZCARD", keys.readers())).isEqualTo(2L);
        assertThat((Long) server.get().command("PTTL", keys.readers())).as("the set outlives its members").isBetween(4_000L, TTL);
        assertThat(server.get().command("EXISTS", keys.lock())).as("readers leave the lock key alone").isEqualTo(0L);
    }

    @Test
    void aWriterWaitsForReadersRegistersAtOnceAndNewReadersYieldToIt() {
        token(read("reader-a", ""));
        assertThat(blockedFor(write("writer-w"))).as("until the reader's lease ends").isBetween(4_000L, TTL);
        assertThat(server.get().command("ZSCORE", keys.writers(), "writer-w")).as("registered on a first attempt").isNotNull();
        assertThat((Long) server.get().command("PTTL", keys.writers())).isBetween(1L, REGISTRATION);

        assertThat(blockedFor(read("reader-b", "reader-b"))).as("yields to the waiting writer").isPositive();
        assertThat(server.get().command("ZSCORE", keys.waiters(), "reader-b")).as("a subscribed reader registers").isNotNull();
        assertThat(server.get().command("ZCARD", keys.readers())).isEqualTo(1L);
    }

    @Test
    void theWriterHoldsTheLockKeyWithAHigherTokenOnceTheLastReaderLeaves() throws InterruptedException {
        long readerToken = token(read("reader-a", ""));
        write("writer-w");
        assertThat(readRelease("reader-a", "")).isEqualTo(1L);
        assertThat(nextMessage()).as("the last reader wakes the waiting writer").isEqualTo("writer-w");
        long writerToken = token(write("writer-w"));
        assertThat(writerToken).isGreaterThan(readerToken);
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("writer-w");
        assertThat(server.get().command("EXISTS", keys.writers())).as("registration removed").isEqualTo(0L);
        assertThat(blockedFor(read("reader-b", ""))).as("no reader while a writer holds").isBetween(4_000L, TTL);
    }

    @Test
    void aReaderThatIsNotTheLastWakesNobody() throws InterruptedException {
        token(read("reader-a", ""));
        token(read("reader-b", ""));
        write("writer-w");
        assertThat(readRelease("reader-a", "")).isEqualTo(1L);
        assertThat(nextMessage()).isNull();
        assertThat(readRelease("reader-a", "")).as("released twice").isZero();
    }

    @Test
    void theWritersReleaseWakesEveryWaitingReaderOrElseOneWriter() throws InterruptedException {
        token(write("writer-w"));
        blockedFor(read("reader-a", "reader-a"));
        assertThat(writeRelease("intruder", "")).isZero();
        assertThat(writeRelease("writer-w", "")).isEqualTo(1L);
        assertThat(nextMessage()).isEqualTo("*");
        assertThat(server.get().command("EXISTS", keys.lock())).isEqualTo(0L);

        server.get().command("DEL", keys.waiters());
        token(write("writer-w"));
        blockedFor(write("writer-x"));
        assertThat(writeRelease("writer-w", "")).isEqualTo(1L);
        assertThat(nextMessage()).as("only writers wait").isEqualTo("writer-x");

        token(write("writer-x"));
        assertThat(writeRelease("writer-x", "")).isEqualTo(1L);
        assertThat(nextMessage()).as("nobody waits").isNull();
    }

    @Test
    void anAbandonedWriterForgetsItsRegistrationAndLetsTheYieldingReadersGo() throws InterruptedException {
        token(read("reader-a", ""));
        blockedFor(write("writer-w"));
        blockedFor(read("reader-b", "reader-b"));
        assertThat(writeRelease("writer-w", "writer-w")).as("abandon: it never held").isZero();
        assertThat(server.get().command("EXISTS", keys.writers())).isEqualTo(0L);
        assertThat(nextMessage()).as("readers that yielded to it may go").isEqualTo("*");
        token(read("reader-b", "reader-b"));
        assertThat(server.get().command("EXISTS", keys.waiters())).as("the admitted reader's registration is gone").isEqualTo(0L);
    }

    @Test
    void anAbandonedWriterWhoseLateAttemptWonReleasesTheLock() throws InterruptedException {
        token(write("writer-w"));
        blockedFor(read("reader-a", "reader-a"));
        assertThat(writeRelease("writer-w", "writer-w")).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", keys.lock())).isEqualTo(0L);
        assertThat(nextMessage()).isEqualTo("*");
    }

    @Test
    void anAbandonedReaderForgetsItsRegistrationAndAnyLateLease() throws InterruptedException {
        token(write("writer-w"));
        blockedFor(read("reader-a", "reader-a"));
        assertThat(readRelease("reader-a", "reader-a")).isZero();
        assertThat(server.get().command("EXISTS", keys.waiters())).isEqualTo(0L);

        writeRelease("writer-w", "");
        nextMessage();
        token(read("reader-b", ""));
        blockedFor(write("writer-x"));
        assertThat(readRelease("reader-b", "reader-b")).as("a late lease is released").isEqualTo(1L);
        assertThat(nextMessage()).isEqualTo("writer-x");
    }

    @Test
    void aCrashedReadersLeaseExpiresAndNoLongerBlocksTheWriter() throws InterruptedException {
        token(read("reader-dead", 100, ""));
        token(read("reader-live", 60_000, ""));
        assertThat(readRelease("reader-live", "")).isEqualTo(1L);
        assertThat(blockedFor(write("writer-w"))).as("the dead reader's lease still runs").isBetween(1L, 100L);
        Thread.sleep(150);
        token(write("writer-w"));
        assertThat(server.get().command("EXISTS", keys.readers())).as("the dead reader was purged").isEqualTo(0L);
        assertThat(readRelease("reader-dead", "")).as("its late release is not a release").isZero();
    }

    @Test
    void aDeadWaitingWritersRegistrationExpiresAndNoLongerBlocksReaders() throws InterruptedException {
        token(read("reader-a", ""));
        blockedFor(write("writer-dead", 100));
        blockedFor(read("reader-b", ""));
        Thread.sleep(150);
        token(read("reader-b", ""));
        assertThat(server.get().command("ZCARD", keys.writers())).isEqualTo(0L);
    }

    @Test
    void aShortWriterRegistrationNeverCutsTheWritersKeyShortForLongerOnes() {
        token(read("reader-a", ""));
        write("writer-long", 60_000);
        write("writer-short", 100);
        assertThat((Long) server.get().command("PTTL", keys.writers())).isGreaterThan(50_000L);
    }

    @Test
    void aPlainMutexAndTheWriterExcludeEachOther() {
        server.get().command("SET", keys.lock(), "mutex-holder", "PX", "5000");
        assertThat(blockedFor(write("writer-w"))).isBetween(4_000L, 5_000L);
        assertThat(blockedFor(read("reader-a", ""))).isPositive();
        server.get().command("SET", keys.lock(), "no-ttl");
        assertThat(read("reader-a", "").get(1)).as("a key without ttl: unknown").isEqualTo(-1L);
    }

    @Test
    void acquiresOnKeysOfAnotherTypeFailWithTheTypeAndWriteNothing() {
        for (String key : List.of(keys.lock(), keys.readers(), keys.writers())) {
            server.get().command("FLUSHALL");
            server.get().command("HSET", key, "someone", "1");
            assertThatThrownBy(() -> read("reader-a", "reader-a"))
                    .hasRootCauseInstanceOf(RedisCommandExecutionException.class)
                    .hasMessageContaining("LEASEHOLD_FOREIGN_TYPE hash " + key);
            assertThatThrownBy(() -> write("writer-w"))
                    .hasRootCauseInstanceOf(RedisCommandExecutionException.class)
                    .hasMessageContaining("LEASEHOLD_FOREIGN_TYPE hash " + key);
            assertThat(ServerProbe.keys(server.get())).as("nothing written beside " + key).containsExactly(key);
        }
        server.get().command("FLUSHALL");
        server.get().command("HSET", keys.fence(), "someone", "1");
        assertThatThrownBy(() -> read("reader-a", ""))
                .hasMessageContaining("LEASEHOLD_FOREIGN_TYPE hash " + keys.fence());
        assertThat(ServerProbe.keys(server.get())).containsExactly(keys.fence());
    }

    @Test
    void releasesOnKeysOfAnotherTypeAreNotOursAndLeaveThemAlone() throws InterruptedException {
        server.get().command("HSET", keys.lock(), "writer-w", "1");
        server.get().command("SET", keys.readers(), "reader-a");
        server.get().command("SET", keys.writers(), "x");
        assertThat(writeRelease("writer-w", "writer-w")).isZero();
        assertThat(readRelease("reader-a", "reader-a")).isZero();
        assertThat(server.get().command("TYPE", keys.lock())).isEqualTo("hash");
        assertThat(server.get().command("TYPE", keys.readers())).isEqualTo("string");
        assertThat(server.get().command("TYPE", keys.writers())).isEqualTo("string");
        assertThat(nextMessage()).isNull();
    }

    @Test
    void aWaitersKeyOfAnotherTypeNeitherBlocksReadersNorSilencesTheWritersRelease() throws InterruptedException {
        server.get().command("SET", keys.waiters(), "not-a-sorted-set");
        token(write("writer-w"));
        blockedFor(read("reader-a", "reader-a"));
        assertThat(server.get().command("TYPE", keys.waiters())).isEqualTo("string");
        assertThat(writeRelease("writer-w", "")).isEqualTo(1L);
        assertThat(nextMessage()).as("cannot tell who waits: wake everyone").isEqualTo("*");
        token(read("reader-a", "reader-a"));
    }

    @Test
    void readLeasesAreRenewedAsMembersAndTheWriterAsTheLockKey() {
        token(read("reader-a", 1_000, ""));
        token(read("reader-b", 1_000, ""));
        List<Object> refused = scripts.renewMembers.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.readers(), keys.readers()}, "9000", "reader-a", "intruder").join();
        assertThat(refused).as("the intruder, second, is refused; reader-a extended").containsExactly(2L);
        assertThat((Long) server.get().command("PTTL", keys.readers())).isGreaterThan(8_000L);
        readRelease("reader-a", "");
        readRelease("reader-b", "");
        token(write("writer-w"));
        assertThat(scripts.renewBatch.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock()}, "9000", "writer-w").join()).as("extended").isEmpty();
        assertThat((Long) server.get().command("PTTL", keys.lock())).isGreaterThan(8_000L);
    }

    @Test
    void everyKeyTheLockWritesHasATtl() {
        token(read("reader-a", ""));
        blockedFor(write("writer-w"));
        blockedFor(read("reader-b", "reader-b"));
        readRelease("reader-a", "");
        token(write("writer-w"));
        blockedFor(read("reader-c", "reader-c"));
        assertThat(ServerProbe.keys(server.get())).isNotEmpty();
        assertThat(ServerProbe.keysWithoutTtl(server.get())).isEmpty();
    }
}
