package dev.leasehold.redis;

import dev.leasehold.LeaderInfo;
import dev.leasehold.Lease;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipListener;
import dev.leasehold.LeadershipOptions;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.spi.LeaderRecords;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The leader-record scripts on their own, against a real redis-server: fenced by the term's token. */
class RedisLeaderRecordsTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @Test
    void aDeposedLeaderNeverOverwritesItsSuccessorsRecordNorClearsIt() {
        try (RedisLockClient client = RedisLocks.connect(server.get().uri())) {
            LeaderRecords records = client.leaderRecords();
            Duration ttl = Duration.ofSeconds(10);
            Lease first = client.lock("records").acquire(Duration.ZERO);
            LeaderInfo old = new LeaderInfo("a", first.token(), Optional.of("a:1"));
            assertThat(records.publish("records", old, ttl).join()).isTrue();
            assertThat(records.read("records").join()).contains(old);
            first.release();
            assertThat(records.read("records").join()).as("its term's lock is gone").isEmpty();
            assertThat(records.publish("records", old, ttl).join()).as("no lock, no record").isFalse();

            Lease second = client.lock("records").acquire(Duration.ZERO);
            LeaderInfo next = new LeaderInfo("b", second.token(), Optional.empty());
            assertThat(records.publish("records", next, ttl).join()).isTrue();
            assertThat(records.publish("records", old, ttl).join()).as("a late refresh of the old term").isFalse();
            records.clear("records", old.token()).join();
            assertThat(records.read("records").join()).contains(next);
            assertThat(server.get().command("PTTL", "{records}:leader")).isInstanceOf(Long.class)
                    .satisfies(pttl -> assertThat((Long) pttl).isPositive().isLessThanOrEqualTo(ttl.toMillis()));
            records.clear("records", next.token()).join();
            assertThat(records.read("records").join()).isEmpty();
            second.release();
        }
    }

    @Test
    void aLeaderWhoseTermOutlastsTheFenceRetentionIsStillTheCurrentLeader() throws InterruptedException {
        try (RedisLockClient client = RedisLocks.builder().uri(server.get().uri()).fenceRetention(Duration.ofSeconds(1))
                .connect();
             Leadership candidate = client.leadership("long-term", LeadershipOptions.defaults()
                     .withLockOptions(LockOptions.watchdog(Duration.ofSeconds(1))).withLeaderId("a"))) {
            candidate.start(new LeadershipListener() {
                @Override
                public void onElected(Lease term) {
                }

                @Override
                public void onRevoked(String reason) {
                }
            });
            Lease term = candidate.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
            // Several refreshes after the fence key (written once, at the acquire) expired.
            Thread.sleep(2_500);
            assertThat(term.isValid()).isTrue();
            assertThat(candidate.currentLeader()).as("the leader leads on, past the fence retention")
                    .map(LeaderInfo::token).contains(term.token());
        }
    }

    /**
     * A leader-record key that holds another type belongs to some other program: publishing is
     * refused naming the key, as every other script refuses a foreign key, and the key is left as it was.
     */
    @Test
    void aLeaderRecordKeyOfAnotherTypeIsRefusedAndLeftUntouched() {
        try (RedisLockClient client = RedisLocks.connect(server.get().uri())) {
            server.get().command("SET", "{foreign-record}:leader", "someone else's data");
            Lease term = client.lock("foreign-record").acquire(Duration.ZERO);
            LeaderInfo info = new LeaderInfo("a", term.token(), Optional.empty());
            assertThatThrownBy(() -> client.leaderRecords().publish("foreign-record", info, Duration.ofSeconds(10)).join())
                    .isInstanceOf(CompletionException.class).hasMessageContaining("{foreign-record}:leader");
            assertThat(server.get().command("GET", "{foreign-record}:leader")).isEqualTo("someone else's data");
            assertThat(client.leaderRecords().read("foreign-record").join()).isEmpty();
            term.release();
        }
    }
}
