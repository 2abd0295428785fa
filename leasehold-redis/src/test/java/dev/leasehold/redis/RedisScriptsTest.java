package dev.leasehold.redis;

import dev.leasehold.launcher.RedisBinary;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisScript;
import dev.leasehold.testkit.junit.FlushedRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each Lua script on its own, against a real server. */
class RedisScriptsTest {

    @RegisterExtension
    static final FlushedRedis server = FlushedRedis.perClass();
    private final RedisAsyncCommands<String, String> commands = server.commands();
    /** One lease at a time: a Redlock node's renewal. */
    private static final RedisScript RENEW = RedisScript.load("renew.lua");
    /** The mutex's scripts, called raw to see their exact replies. */
    private static final RedisScript ACQUIRE = RedisScript.load("acquire.lua");
    private static final RedisScript RELEASE = RedisScript.load("release.lua");
    private final RedisScripts scripts = new RedisScripts();
    private final LockKeys keys = LockKeys.of("script:lock");

    private List<Object> acquire(String holder, long ttlMillis, String waiter) {
        return acquire(holder, ttlMillis, waiter, 5_000);
    }

    private List<Object> acquire(String holder, long ttlMillis, String waiter, long registrationMillis) {
        return ACQUIRE.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.waiters()},
                holder, Long.toString(ttlMillis), "60000", waiter, Long.toString(registrationMillis)).join();
    }

    private long release(String holder, String waiter) {
        return RELEASE.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.waiters()},
                holder, waiter, keys.channel()).join();
    }

    /**
     * The uncontended acquire asks no TYPE (a GET or SET NX tells a foreign key by itself): four
     * commands where the first version ran eight.
     */
    @Test
    void anUncontendedAcquireRunsFourCommandsAndNoType() {
        server.get().command("CONFIG", "RESETSTAT");
        acquire("holder-a", 5_000, "");
        assertThat(ServerProbe.calls(server.get(), "type")).isZero();
        assertThat(ServerProbe.calls(server.get(), "get") + ServerProbe.calls(server.get(), "set")
                + ServerProbe.calls(server.get(), "time")).as("GET fence, SET NX PX, TIME, SET fence").isEqualTo(4);
    }

    @Test
    void acquireSetsTheKeyWithTtlAndReturnsAServerTimeToken() {
        long before = System.currentTimeMillis() * 1000 - 5_000_000;
        List<Object> reply = acquire("holder-a", 5_000, "");
        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat(token(reply)).as("microsecond server time").isGreaterThan(before);
        assertThat(server.get().command("GET", "script:lock")).isEqualTo("holder-a");
        assertThat((Long) server.get().command("PTTL", "script:lock")).isBetween(4_000L, 5_000L);
        assertThat(server.get().command("GET", keys.fence())).isEqualTo(reply.get(1).toString());
    }

    @Test
    void acquireOnAHeldLockReturnsTheHoldersTtlAndRegistersTheWaiter() {
        acquire("holder-a", 5_000, "");
        List<Object> reply = acquire("holder-b", 5_000, "waiter-b");
        assertThat(reply.get(0)).isEqualTo(0L);
        assertThat((Long) reply.get(1)).isBetween(4_000L, 5_000L);
        assertThat(server.get().command("GET", "script:lock")).isEqualTo("holder-a");
        assertThat(server.get().command("ZCARD", keys.waiters())).isEqualTo(1L);
        assertThat((Long) server.get().command("PTTL", keys.waiters())).isBetween(1L, 5_000L);
        assertThat(acquire("holder-c", 5_000, "").get(0)).isEqualTo(0L);
        assertThat(server.get().command("ZCARD", keys.waiters())).as("a first try does not register").isEqualTo(1L);
    }

    @Test
    void aFollowingAcquireGetsAHigherTokenEvenInTheSameMicrosecond() {
        long first = token(acquire("holder-a", 5_000, ""));
        release("holder-a", "");
        server.get().command("SET", keys.fence(), Long.toString(first + 1_000_000_000L));
        long second = token(acquire("holder-b", 5_000, ""));
        assertThat(second).isEqualTo(first + 1_000_000_000L + 1);
    }

    /** The granted token, which the script sends as a decimal string (exact above 2^53). */
    private static long token(List<Object> granted) {
        assertThat(granted.get(0)).isEqualTo(1L);
        return Long.parseLong((String) granted.get(1));
    }

    @Test
    void tokensAboveTwoToThe53AreExactAndKeepIncreasing() {
        long start = (1L << 53) + 1;
        server.get().command("SET", keys.fence(), Long.toString(start));
        assertThat(token(acquire("holder-a", 5_000, ""))).isEqualTo(start + 1);
        release("holder-a", "");
        assertThat(token(acquire("holder-b", 5_000, ""))).isEqualTo(start + 2);
        assertThat(server.get().command("GET", keys.fence())).isEqualTo(Long.toString(start + 2));
        assertThat((Long) server.get().command("PTTL", keys.fence())).as("retention renewed").isBetween(1L, 60_000L);
    }

    @Test
    void theLargestTokenIsIssuedOnceThenTheCounterIsRefusedAndNothingIsWritten() {
        server.get().command("SET", keys.fence(), Long.toString(Long.MAX_VALUE - 1));
        assertThat(token(acquire("holder-a", 5_000, ""))).isEqualTo(Long.MAX_VALUE);
        release("holder-a", "");
        assertThatThrownBy(() -> acquire("holder-b", 5_000, "waiter-b"))
                .rootCause().hasMessage("LEASEHOLD_FENCE_EXHAUSTED " + keys.fence());
        assertThat(server.get().command("EXISTS", keys.lock())).as("no lock without a token").isEqualTo(0L);
        assertThat(server.get().command("GET", keys.fence())).isEqualTo(Long.toString(Long.MAX_VALUE));
    }

    @Test
    void aFenceThatIsNotA64BitCounterIsRefusedAndNothingIsWritten() {
        for (String bad : new String[] {"abc", "-5", "1.5", "007", "9223372036854775808", "99999999999999999999"}) {
            server.get().command("SET", keys.fence(), bad);
            assertThatThrownBy(() -> acquire("holder-a", 5_000, "")).as(bad)
                    .rootCause().hasMessage("LEASEHOLD_FENCE_INVALID " + keys.fence());
            assertThat(server.get().command("EXISTS", keys.lock())).as(bad).isEqualTo(0L);
        }
    }

    @Test
    void aShortRegistrationNeverCutsTheWaitersKeyShortForLongerOnes() {
        acquire("holder-a", 5_000, "");
        acquire("holder-b", 5_000, "waiter-b", 30_000);
        acquire("holder-c", 5_000, "waiter-c", 50);
        assertThat((Long) server.get().command("PTTL", keys.waiters())).as("waiter-b's registration still counts")
                .isGreaterThan(29_000L);
        acquire("holder-d", 5_000, "waiter-d", 60_000);
        assertThat((Long) server.get().command("PTTL", keys.waiters())).as("a longer one extends it")
                .isGreaterThan(59_000L);
    }

    @Test
    void acquireBySuccessfulWaiterRemovesItsRegistration() {
        acquire("holder-a", 5_000, "");
        acquire("holder-b", 5_000, "waiter-b");
        release("holder-a", "");
        assertThat(acquire("holder-b", 5_000, "waiter-b").get(0)).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", keys.waiters())).isEqualTo(0L);
    }

    @Test
    void releaseDeletesOnlyTheCallersKey() {
        acquire("holder-a", 5_000, "");
        assertThat(release("intruder", "")).isZero();
        assertThat(server.get().command("GET", "script:lock")).isEqualTo("holder-a");
        assertThat(release("holder-a", "")).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", "script:lock")).isEqualTo(0L);
        assertThat(release("holder-a", "")).isZero();
    }

    @Test
    void releasePublishesOnlyToLiveWaitersAndAbandonForgetsTheWaiter() {
        acquire("holder-a", 5_000, "");
        acquire("holder-b", 5_000, "waiter-b");
        long publishes = ServerProbe.calls(server.get(), "publish");
        assertThat(release("holder-b", "waiter-b")).as("abandon: not the owner").isZero();
        assertThat(server.get().command("EXISTS", keys.waiters())).isEqualTo(0L);
        assertThat(release("holder-a", "")).isEqualTo(1L);
        assertThat(ServerProbe.calls(server.get(), "publish")).as("nobody waits any more").isEqualTo(publishes);

        acquire("holder-a", 5_000, "");
        server.get().command("ZADD", keys.waiters(), "1", "expired-waiter");
        release("holder-a", "");
        assertThat(ServerProbe.calls(server.get(), "publish")).as("expired registrations do not count").isEqualTo(publishes);

        acquire("holder-a", 5_000, "");
        acquire("holder-b", 5_000, "waiter-b");
        release("holder-a", "");
        assertThat(ServerProbe.calls(server.get(), "publish")).isEqualTo(publishes + 1);
    }

    @Test
    void renewExtendsOnlyTheHoldersKey() {
        acquire("holder-a", 1_000, "");
        assertThat(RENEW.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock()}, "intruder", "9000").join()).isZero();
        assertThat((Long) server.get().command("PTTL", "script:lock")).isLessThanOrEqualTo(1_000L);
        assertThat(RENEW.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock()}, "holder-a", "9000").join()).isEqualTo(1L);
        assertThat((Long) server.get().command("PTTL", "script:lock")).isGreaterThan(8_000L);
        server.get().command("DEL", "script:lock");
        assertThat(RENEW.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock()}, "holder-a", "9000").join()).isZero();
        assertThat(server.get().command("EXISTS", "script:lock")).as("a late renewal never recreates the key").isEqualTo(0L);
    }

    @Test
    void batchRenewalExtendsEachKeyOnlyForItsOwnHolder() {
        server.get().command("SET", "batch:a", "holder-a", "PX", "1000");
        server.get().command("SET", "batch:b", "someone-else", "PX", "1000");
        List<Object> refused = scripts.renewBatch.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {"batch:a", "batch:b", "batch:gone"}, "9000", "holder-a", "holder-b", "holder-c").join();
        assertThat(refused).as("the 2nd and 3rd refused, the 1st extended").containsExactly(2L, 3L);
        assertThat((Long) server.get().command("PTTL", "batch:a")).isGreaterThan(8_000L);
        assertThat((Long) server.get().command("PTTL", "batch:b")).isLessThanOrEqualTo(1_000L);
        assertThat(server.get().command("EXISTS", "batch:gone")).isEqualTo(0L);
    }

    /**
     * The batch extends with one PEXPIRE GT on Redis 7 (no PTTL), and falls back to PTTL then
     * PEXPIRE on Redis 6.2 (the embedded binary), which refuses GT: on both it extends a key that
     * lives shorter and never shortens one that lives longer.
     */
    @Test
    void batchRenewalNeverShortensAKeyOnRedis7WithGtAndOnOlderServersWithout() {
        try (RedisServer old = RedisServer.builder().binary(RedisBinary.embedded().path()).start()) {
            for (RedisServer target : List.of(server.get(), old)) {
                target.command("SET", "batch:short", "holder-a", "PX", "1000");
                target.command("SET", "batch:long", "holder-b", "PX", "60000");
                target.command("CONFIG", "RESETSTAT");
                try (RedisClient own = RedisClient.create(target.uri());
                     StatefulRedisConnection<String, String> link = own.connect()) {
                    List<Object> refused = scripts.renewBatch.<List<Object>>run(link.async(), ScriptOutputType.MULTI,
                            new String[] {"batch:short", "batch:long"}, "9000", "holder-a", "holder-b").join();
                    assertThat(refused).as("both extended, on Redis %s", version(target)).isEmpty();
                }
                if (!version(target).startsWith("6.")) {
                    assertThat(ServerProbe.calls(target, "pttl")).as("GT needs no PTTL").isZero();
                }
                assertThat((Long) target.command("PTTL", "batch:short")).isGreaterThan(8_000L);
                assertThat((Long) target.command("PTTL", "batch:long")).as("never shortened").isGreaterThan(50_000L);
            }
        }
    }

    /**
     * A held key without a TTL (persisted by hand, restored without one) gets the ttl from a batch
     * renewal, as from a single renewal (renew.lua): otherwise it would never free if its holder died.
     * PEXPIRE GT treats a key without a TTL as living forever and leaves it so.
     */
    @Test
    void batchRenewalGivesAHeldKeyWithoutTtlItsTtlOnRedis7AndOnOlderServers() {
        try (RedisServer old = RedisServer.builder().binary(RedisBinary.embedded().path()).start()) {
            for (RedisServer target : List.of(server.get(), old)) {
                target.command("SET", "batch:persistent", "holder-a");
                try (RedisClient own = RedisClient.create(target.uri());
                     StatefulRedisConnection<String, String> link = own.connect()) {
                    List<Object> refused = scripts.renewBatch.<List<Object>>run(link.async(), ScriptOutputType.MULTI,
                            new String[] {"batch:persistent"}, "9000", "holder-a").join();
                    assertThat(refused).as("extended, on Redis %s", version(target)).isEmpty();
                }
                assertThat((Long) target.command("PTTL", "batch:persistent")).as("on Redis %s", version(target))
                        .isGreaterThan(8_000L).isLessThanOrEqualTo(9_000L);
            }
        }
    }

    private static String version(RedisServer target) {
        String info = (String) target.command("INFO", "server");
        return info.substring(info.indexOf("redis_version:") + 14).split("\\s")[0];
    }

    @Test
    void memberRenewalExtendsOnlyLiveMembersOfTheirOwnHolder() {
        long now = System.currentTimeMillis();
        server.get().command("ZADD", "members:a", Long.toString(now + 1_000), "holder-a");
        server.get().command("ZADD", "members:a", Long.toString(now - 1_000), "holder-expired");
        server.get().command("PEXPIRE", "members:a", "1000");
        server.get().command("SET", "members:string", "holder-s");
        List<Object> refused = scripts.renewMembers.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {"members:a", "members:a", "members:a", "members:string"},
                "9000", "holder-a", "holder-expired", "holder-gone", "holder-s").join();
        assertThat(refused).as("all but the 1st refused").containsExactly(2L, 3L, 4L);
        assertThat(Double.parseDouble((String) server.get().command("ZSCORE", "members:a", "holder-a")))
                .isGreaterThan(now + 8_000.0);
        assertThat((Long) server.get().command("PTTL", "members:a")).as("the set outlives its longest member").isGreaterThan(8_000L);
        assertThat(server.get().command("ZSCORE", "members:a", "holder-gone")).isNull();
    }

    @Test
    void renewalsTreatAKeyOfAnotherTypeAsNotOursAndExtendTheRest() {
        server.get().command("SET", "batch:a", "holder-a", "PX", "1000");
        server.get().command("HSET", "batch:hash", "holder-b", "1");
        server.get().command("RPUSH", "batch:list", "holder-c");
        server.get().command("SET", "batch:d", "holder-d", "PX", "1000");
        List<Object> refused = scripts.renewBatch.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {"batch:a", "batch:hash", "batch:list", "batch:d"},
                "9000", "holder-a", "holder-b", "holder-c", "holder-d").join();
        assertThat(refused).as("the hash and the list refused, both strings extended").containsExactly(2L, 3L);
        assertThat((Long) server.get().command("PTTL", "batch:d")).isGreaterThan(8_000L);
        assertThat(server.get().command("TYPE", "batch:hash")).isEqualTo("hash");

        assertThat(RENEW.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {"batch:hash"}, "holder-b", "9000")
                .join()).isZero();
        assertThat((Long) server.get().command("PTTL", "batch:hash")).as("not extended").isEqualTo(-1L);
    }

    @Test
    void releaseOfAKeyOfAnotherTypeIsNotOursAndLeavesItAlone() {
        server.get().command("HSET", keys.lock(), "holder-a", "1");
        assertThat(release("holder-a", "waiter-a")).isZero();
        assertThat(server.get().command("TYPE", keys.lock())).isEqualTo("hash");
    }

    @Test
    void aWaitersKeyOfAnotherTypeNeitherBlocksAcquireNorReleaseAndReleaseStillWakes() {
        server.get().command("SET", keys.waiters(), "not-a-sorted-set");
        assertThat(acquire("holder-a", 5_000, "waiter-a").get(0)).isEqualTo(1L);
        assertThat(acquire("holder-b", 5_000, "waiter-b").get(0)).as("held, registration skipped").isEqualTo(0L);
        long publishes = ServerProbe.calls(server.get(), "publish");
        assertThat(release("holder-b", "waiter-b")).isZero();
        assertThat(release("holder-a", "")).isEqualTo(1L);
        assertThat(ServerProbe.calls(server.get(), "publish")).as("who waits is unknown: wake them").isEqualTo(publishes + 1);
        assertThat(server.get().command("GET", keys.waiters())).isEqualTo("not-a-sorted-set");
    }

    @Test
    void acquireOnALockOrFenceKeyOfAnotherTypeFailsWithTheTypeAndWritesNothing() {
        server.get().command("HSET", keys.lock(), "holder-x", "1");
        assertThatThrownBy(() -> acquire("holder-a", 5_000, "waiter-a"))
                .hasRootCauseInstanceOf(RedisCommandExecutionException.class)
                .rootCause().hasMessage("LEASEHOLD_FOREIGN_TYPE hash " + keys.lock());
        assertThat(server.get().command("EXISTS", keys.fence(), keys.waiters())).isEqualTo(0L);

        server.get().command("DEL", keys.lock());
        server.get().command("SADD", keys.fence(), "17");
        assertThatThrownBy(() -> acquire("holder-a", 5_000, ""))
                .rootCause().hasMessage("LEASEHOLD_FOREIGN_TYPE set " + keys.fence());
        assertThat(server.get().command("EXISTS", keys.lock())).as("no lock without a token").isEqualTo(0L);
    }

    @Test
    void inspectReportsAKeyOfAnotherType() {
        server.get().command("HSET", keys.lock(), "holder-x", "1");
        List<Object> reply = inspect();
        assertThat(reply).containsExactly("", 0L, List.of(), -2L, "", 0L, "hash " + keys.lock());
    }

    @Test
    void inspectReportsHolderTtlFenceAndLiveWaiters() {
        List<Object> empty = inspect();
        assertThat(empty).containsExactly("", 0L, List.of(), -2L, "", 0L, "");
        long token = token(acquire("holder-a", 5_000, ""));
        acquire("holder-b", 5_000, "waiter-b");
        List<Object> held = inspect();
        assertThat(held.get(0)).isEqualTo("lock");
        assertThat(held.get(2)).isEqualTo(List.of("holder-a"));
        assertThat((Long) held.get(3)).isBetween(4_000L, 5_000L);
        assertThat(held.get(4)).isEqualTo(Long.toString(token));
        assertThat(held.get(5)).isEqualTo(1L);
    }

    /** inspect.lua over the name's keys, as the inspector calls it. */
    private List<Object> inspect() {
        return scripts.inspect.<List<Object>>run(commands, ScriptOutputType.MULTI, RedisInspector.snapshotKeys(keys))
                .join();
    }

    @Test
    void aFlushedScriptCacheFallsBackToEvalOnce() {
        server.get().command("SCRIPT", "FLUSH");
        long evals = ServerProbe.calls(server.get(), "eval");
        assertThat(acquire("holder-a", 5_000, "").get(0)).isEqualTo(1L);
        assertThat(ServerProbe.calls(server.get(), "eval")).isEqualTo(evals + 1);
        assertThat(release("holder-a", "")).isEqualTo(1L);
        acquire("holder-a", 5_000, "");
        assertThat(ServerProbe.calls(server.get(), "eval")).as("cached after the first EVAL").isEqualTo(evals + 2);
    }
}
