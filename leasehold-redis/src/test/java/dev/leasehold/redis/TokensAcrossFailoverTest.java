package dev.leasehold.redis;

import dev.leasehold.launcher.LibFaketime;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisBinary;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tokens across a failover to a replica whose clock runs behind (libfaketime), when the master
 * dies before replicating its last grant: the promoted replica's token is {@code max(last
 * replicated + 1, its own TIME in µs)}. It exceeds the lost grant's token as long as the replica's
 * clock is behind by less than the time between that grant and the new one; behind by more, the
 * new token is lower, which is the assumption docs/redis.md states ("What a failover can lose") (and a guard would then refuse
 * the new holder's writes). The replica runs the redis-server 6.2 shipped in the embedded-redis
 * jar: Debian's build hangs under libfaketime.
 */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TokensAcrossFailoverTest {

    @Test
    void aReplicaBehindByLessThanTheFailoverTimeIssuesAHigherToken() throws Exception {
        assertThat(tokenAfterPromotion("-1", Duration.ofMillis(2500))).as("new token minus lost token").isPositive();
    }

    @Test
    void aReplicaBehindByMoreThanTheFailoverTimeIssuesALowerToken() throws Exception {
        assertThat(tokenAfterPromotion("-60", Duration.ofMillis(500))).as("new token minus lost token").isNegative();
    }

    /** The promoted replica's token minus the token the master granted and lost. */
    private static long tokenAfterPromotion(String replicaClockOffsetSeconds, Duration failoverTime) throws Exception {
        assertThat(LibFaketime.LIBRARY).as("libfaketime (Debian package libfaketime, which .ci/run installs): this test runs everywhere, never skips").exists();
        try (RedisServer master = RedisServer.builder().binary(RedisBinary.embedded().path()).start();
             RedisServer replica = RedisServer.builder().binary(RedisBinary.embedded().path())
                     .env("LD_PRELOAD", LibFaketime.LIBRARY.toString()).env("FAKETIME", replicaClockOffsetSeconds)
                     .arg("--replicaof", master.host(), Integer.toString(master.port())).start()) {
            long skew = Long.parseLong((String) ((java.util.List<?>) master.command("TIME")).get(0))
                    - Long.parseLong((String) ((java.util.List<?>) replica.command("TIME")).get(0));
            assertThat(skew).as("the replica's clock is behind").isGreaterThanOrEqualTo(-Long.parseLong(
                    replicaClockOffsetSeconds) - 1);
            awaitSync(replica);
            try (RedisLockClient onMaster = RedisLocks.connect(master.uri())) {
                Lease first = onMaster.lock("fence:failover").acquire(Duration.ofSeconds(2));
                long replicated = first.token();
                first.release();
                awaitReplicated(replica, "{fence:failover}:fence", replicated);
                replica.pause();
                master.command("CLIENT", "KILL", "TYPE", "replica");
                long lost = forceNewToken(onMaster, replicated);
                master.kill();
                replica.resume();
                Thread.sleep(failoverTime.toMillis());
                replica.command("REPLICAOF", "NO", "ONE");
                try (RedisLockClient onPromoted = RedisLocks.connect(replica.uri())) {
                    long promoted = onPromoted.lock("fence:failover").acquire(Duration.ofSeconds(10)).token();
                    System.out.printf("replica clock %s s: lost grant %d, promoted replica's grant %d (%+d µs)%n",
                            replicaClockOffsetSeconds, lost, promoted, promoted - lost);
                    assertThat(promoted).as("above every replicated token").isGreaterThan(replicated);
                    return promoted - lost;
                }
            }
        }
    }

    private static void awaitReplicated(RedisServer replica, String key, long value) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!Long.toString(value).equals(replica.command("GET", key))) {
            assertThat(System.nanoTime()).as("fence replicated").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** A grant after {@code previous}'s release, on the master only. */
    private static long forceNewToken(RedisLockClient client, long previous) {
        long token = client.lock("fence:failover").acquire(Duration.ofSeconds(2)).token();
        assertThat(token).isGreaterThan(previous);
        return token;
    }

    private static void awaitSync(RedisServer replica) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!((String) replica.command("INFO", "replication")).contains("master_link_status:up")) {
            assertThat(System.nanoTime()).as("replica in sync").isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
