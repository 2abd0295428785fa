package dev.leasehold.redis;

import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.testkit.junit.FlushedRedis;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The semaphore's scripts on their own, against a real server. */
class RedisSemaphoreScriptsTest {

    @RegisterExtension
    static final FlushedRedis server = FlushedRedis.perClass();
    private final RedisAsyncCommands<String, String> commands = server.commands();
    private final RedisScripts scripts = new RedisScripts();
    private final LockKeys keys = LockKeys.of("script:sem");

    private List<Object> acquire(String holder, long ttlMillis, int permits, String waiter) {
        return scripts.semaphoreAcquire.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.permits(), keys.fence(), keys.waiters()},
                holder, Long.toString(ttlMillis), Integer.toString(permits), "60000", waiter, "5000").join();
    }

    private long release(String holder, String waiter) {
        return scripts.semaphoreRelease.<Long>run(commands, ScriptOutputType.INTEGER,
                new String[] {keys.permits(), keys.waiters()}, holder, waiter, keys.channel()).join();
    }

    private List<Object> state() {
        return scripts.semaphoreAvailable.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.permits()}).join();
    }

    private static long token(List<Object> granted) {
        assertThat(granted.get(0)).as("granted").isEqualTo(1L);
        return Long.parseLong((String) granted.get(1));
    }

    /** What the server holds for the semaphore and its name, to show a refused call wrote nothing. */
    private List<Object> snapshot() {
        return List.of(String.valueOf(server.get().command("DUMP", keys.permits())),
                String.valueOf(server.get().command("GET", keys.fence())),
                String.valueOf(server.get().command("DUMP", keys.waiters())));
    }

    @Test
    void grantsUpToThePermitsWithIncreasingTokensThenReportsTheEarliestExpiry() {
        long first = token(acquire("holder:a", 3_000, 3, ""));
        long second = token(acquire("holder:b", 9_000, 3, ""));
        long third = token(acquire("holder:c", 9_000, 3, ""));
        assertThat(second).isGreaterThan(first);
        assertThat(third).isGreaterThan(second);
        assertThat(server.get().command("GET", keys.fence())).isEqualTo(Long.toString(third));
        assertThat(state()).containsExactly(3L, 3L);

        List<Object> full = acquire("holder:d", 9_000, 3, "holder:d");
        assertThat(full.get(0)).isEqualTo(0L);
        assertThat((Long) full.get(1)).as("until holder:a's lease ends").isBetween(2_000L, 3_000L);
        assertThat(server.get().command("ZSCORE", keys.permits(), "holder:d")).isNull();
        assertThat(server.get().command("ZSCORE", keys.waiters(), "holder:d")).as("registered").isNotNull();
        assertThat((Long) server.get().command("PTTL", keys.waiters())).isBetween(1L, 5_000L);
        assertThat((Long) server.get().command("PTTL", keys.permits())).as("outlives the longest lease")
                .isBetween(8_000L, 9_000L);

        assertThat(release("holder:a", "")).isEqualTo(1L);
        long fourth = token(acquire("holder:d", 9_000, 3, "holder:d"));
        assertThat(fourth).isGreaterThan(third);
        assertThat(server.get().command("ZSCORE", keys.waiters(), "holder:d")).as("a granted waiter leaves").isNull();
    }

    @Test
    void permitsShareTheNamesTokenSequenceWithTheMutex() {
        long mutex = ((MutexScripts.Answer.Granted) scripts.mutex.acquire(commands, keys, "holder:m",
                Duration.ofSeconds(5), Duration.ofMinutes(1), null, Duration.ofSeconds(5)).join()).token();
        long permit = token(acquire("holder:a", 5_000, 2, ""));
        assertThat(permit).isGreaterThan(mutex);
    }

    @Test
    void expiredHoldersArePurgedAndTheirPermitsAreFree() {
        long now = System.currentTimeMillis();
        server.get().command("ZADD", keys.permits(), "-2", "permits");
        server.get().command("ZADD", keys.permits(), Long.toString(now - 1_000), "holder:crashed");
        server.get().command("ZADD", keys.permits(), Long.toString(now + 60_000), "holder:live");
        assertThat(state()).as("the crashed holder does not count").containsExactly(2L, 1L);

        token(acquire("holder:a", 5_000, 2, ""));
        assertThat(server.get().command("ZSCORE", keys.permits(), "holder:crashed")).isNull();
        assertThat(acquire("holder:b", 5_000, 2, "").get(0)).as("full again").isEqualTo(0L);
    }

    @Test
    void anotherNumberOfPermitsIsRefusedWhileLeasesLiveAndWritesNothing() {
        token(acquire("holder:a", 5_000, 2, ""));
        List<Object> before = snapshot();
        assertThatThrownBy(() -> acquire("holder:b", 5_000, 3, "holder:b"))
                .isInstanceOf(CompletionException.class).cause().isInstanceOf(RedisCommandExecutionException.class)
                .hasMessage("LEASEHOLD_PERMITS_MISMATCH 2 3 " + keys.permits());
        assertThat(snapshot()).isEqualTo(before);

        assertThat(release("holder:a", "")).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", keys.permits())).as("no live lease: the number is forgotten").isEqualTo(0L);
        token(acquire("holder:b", 5_000, 3, ""));
        assertThat(state()).containsExactly(3L, 1L);
    }

    @Test
    void onlyExpiredLeasesDoNotHoldTheNumber() {
        long now = System.currentTimeMillis();
        server.get().command("ZADD", keys.permits(), "-2", "permits");
        server.get().command("ZADD", keys.permits(), Long.toString(now - 1), "holder:expired");
        token(acquire("holder:a", 5_000, 5, ""));
        assertThat(state()).containsExactly(5L, 1L);
    }

    @Test
    void releaseRemovesOnlyTheCallersLiveMemberAndDeletesTheSetWithItsLastLease() {
        token(acquire("holder:a", 5_000, 2, ""));
        token(acquire("holder:b", 5_000, 2, ""));
        assertThat(release("holder:intruder", "")).isZero();
        assertThat(state()).containsExactly(2L, 2L);
        assertThat(release("holder:a", "")).isEqualTo(1L);
        assertThat(release("holder:a", "")).as("idempotent").isZero();
        assertThat(server.get().command("ZSCORE", keys.permits(), "holder:b")).isNotNull();
        assertThat(release("holder:b", "")).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", keys.permits())).isEqualTo(0L);
    }

    @Test
    void releaseOfAnExpiredLeaseIsNotOursButRemovesIt() {
        server.get().command("ZADD", keys.permits(), "-2", "permits");
        server.get().command("ZADD", keys.permits(), Long.toString(System.currentTimeMillis() - 1), "holder:late");
        assertThat(release("holder:late", "")).isZero();
        assertThat(server.get().command("EXISTS", keys.permits())).isEqualTo(0L);
    }

    @Test
    void eachReleaseWakesAnotherLiveWaiterAndAbandonForgetsTheWaiter() {
        token(acquire("holder:a", 5_000, 2, ""));
        token(acquire("holder:b", 5_000, 2, ""));
        acquire("holder:w1", 5_000, 2, "holder:w1");
        acquire("holder:w2", 5_000, 2, "holder:w2");
        acquire("holder:w3", 5_000, 2, "holder:w3");
        assertThat(release("holder:w3", "holder:w3")).as("abandon: holds nothing").isZero();
        assertThat(server.get().command("ZSCORE", keys.waiters(), "holder:w3")).isNull();

        long publishes = ServerProbe.calls(server.get(), "publish");
        release("holder:a", "");
        release("holder:b", "");
        assertThat(ServerProbe.calls(server.get(), "publish")).isEqualTo(publishes + 2);
        assertThat(server.get().command("ZCARD", keys.waiters())).as("w1 then w2 woken, not w1 twice").isEqualTo(0L);

        token(acquire("holder:a", 5_000, 2, ""));
        server.get().command("ZADD", keys.waiters(), "1", "holder:expired-waiter");
        release("holder:a", "");
        assertThat(ServerProbe.calls(server.get(), "publish")).as("expired registrations do not count")
                .isEqualTo(publishes + 2);
    }

    @Test
    void aPermitsKeyOfAnotherTypeFailsAcquireAndAvailableAndReleaseLeavesItAlone() {
        server.get().command("SET", keys.permits(), "not-a-sorted-set");
        assertThatThrownBy(() -> acquire("holder:a", 5_000, 2, "holder:a"))
                .cause().hasMessage("LEASEHOLD_FOREIGN_TYPE string " + keys.permits());
        assertThat(server.get().command("EXISTS", keys.fence())).isEqualTo(0L);
        assertThat(server.get().command("EXISTS", keys.waiters())).isEqualTo(0L);
        assertThatThrownBy(this::state).cause().hasMessage("LEASEHOLD_FOREIGN_TYPE string " + keys.permits());
        assertThat(release("holder:a", "holder:a")).isZero();
        assertThat(server.get().command("GET", keys.permits())).isEqualTo("not-a-sorted-set");
    }

    @Test
    void aFenceKeyOfAnotherTypeOrValueFailsAcquireAndWritesNothing() {
        server.get().command("HSET", keys.fence(), "f", "1");
        assertThatThrownBy(() -> acquire("holder:a", 5_000, 2, ""))
                .cause().hasMessage("LEASEHOLD_FOREIGN_TYPE hash " + keys.fence());
        assertThat(server.get().command("EXISTS", keys.permits())).isEqualTo(0L);

        server.get().command("DEL", keys.fence());
        server.get().command("SET", keys.fence(), "not-a-counter");
        assertThatThrownBy(() -> acquire("holder:a", 5_000, 2, ""))
                .cause().hasMessage("LEASEHOLD_FENCE_INVALID " + keys.fence());
        server.get().command("SET", keys.fence(), Long.toString(Long.MAX_VALUE));
        assertThatThrownBy(() -> acquire("holder:a", 5_000, 2, ""))
                .cause().hasMessage("LEASEHOLD_FENCE_EXHAUSTED " + keys.fence());
        assertThat(server.get().command("EXISTS", keys.permits())).isEqualTo(0L);
    }

    @Test
    void aWaitersKeyOfAnotherTypeNeitherBlocksAcquireNorReleaseAndReleaseWakesEveryone() {
        server.get().command("SET", keys.waiters(), "not-a-sorted-set");
        token(acquire("holder:a", 5_000, 1, "holder:a"));
        assertThat(acquire("holder:b", 5_000, 1, "holder:b").get(0)).as("full, registration skipped").isEqualTo(0L);
        long publishes = ServerProbe.calls(server.get(), "publish");
        assertThat(release("holder:a", "")).isEqualTo(1L);
        assertThat(ServerProbe.calls(server.get(), "publish")).as("who waits is unknown: wake them").isEqualTo(publishes + 1);
        assertThat(server.get().command("GET", keys.waiters())).isEqualTo("not-a-sorted-set");
    }

    @Test
    void memberRenewalKeepsTheNumberAndTheSetAliveAsLongAsTheLease() {
        token(acquire("holder:a", 1_000, 2, ""));
        List<Object> refused = scripts.renewMembers.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.permits()}, "9000", "holder:a").join();
        assertThat(refused).as("extended").isEmpty();
        assertThat((Long) server.get().command("PTTL", keys.permits())).isGreaterThan(8_000L);
        assertThat(state()).containsExactly(2L, 1L);
    }

    @Test
    void anEmptyNameHasNoNumberAndNoLease() {
        assertThat(state()).containsExactly(0L, 0L);
    }
}
