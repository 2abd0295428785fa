package dev.leasehold.redis;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.RedisScript;
import dev.leasehold.spi.RenewalRound;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RenewalBatch} against a real server: a call sends its ttl once for all its leases, so
 * leases of different ttls go in separate calls, and each is still extended by its own ttl; a
 * round's one reply per call answers each of its leases, across chunks; a failed call fails each of
 * its leases once, with one error.
 */
class RenewalBatchTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @Test
    void leasesOfDifferentTtlsFlushedTogetherAreEachExtendedByTheirOwnTtl() {
        RedisClient client = RedisClient.create(server.get().uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            server.get().command("SET", "batch:short", "holder-a", "PX", "5000");
            server.get().command("SET", "batch:long", "holder-b", "PX", "5000");
            server.get().command("SET", "batch:taken", "someone-else", "PX", "5000");
            RenewalBatch batch = new RenewalBatch(connection.async(), new RedisScripts().renewBatch, key -> 0,
                    Function.identity());
            CompletableFuture<Boolean> shortOne = batch.add("batch:short", "holder-a", Duration.ofSeconds(9));
            CompletableFuture<Boolean> longOne = batch.add("batch:long", "holder-b", Duration.ofSeconds(60));
            CompletableFuture<Boolean> taken = batch.add("batch:taken", "holder-c", Duration.ofSeconds(9));
            batch.flush();

            assertThat(shortOne.join()).isTrue();
            assertThat(longOne.join()).isTrue();
            assertThat(taken.join()).as("another holder's key is not ours").isFalse();
            assertThat((Long) server.get().command("PTTL", "batch:short")).isGreaterThan(8_000L).isLessThanOrEqualTo(9_000L);
            assertThat((Long) server.get().command("PTTL", "batch:long")).isGreaterThan(59_000L);
            assertThat((Long) server.get().command("PTTL", "batch:taken")).isLessThanOrEqualTo(5_000L);
            assertThat(batch.stats()).as("one call per ttl, one script group")
                    .isEqualTo(new RenewalBatch.Stats(1, 3, 1, 2));
        } finally {
            client.shutdown();
        }
    }

    /** 2,500 leases are three calls (1,000, 1,000, 500); every seventh lease's key is another holder's. */
    @Test
    void aRoundLargerThanAChunkIsAnsweredLeaseByLeaseFromEachCallsRefusedPositions() throws Exception {
        int count = 2 * RenewalBatch.CHUNK + RenewalBatch.CHUNK / 2;
        RedisClient client = RedisClient.create(server.get().uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            for (int i = 0; i < count; i++) {
                connection.sync().set("round:" + i, i % 7 == 3 ? "someone-else" : "holder-" + i,
                        io.lettuce.core.SetArgs.Builder.px(5_000));
            }
            RenewalBatch batch = new RenewalBatch(connection.async(), new RedisScripts().renewBatch, key -> 0,
                    Function.identity());
            Round round = new Round(count, Duration.ofSeconds(9));
            // Names are mapped to keys by the kind: here "round:" + the name.
            batch.send(round, name -> "round:" + name);
            assertThat(round.await()).as("every lease answered").isTrue();

            for (int i = 0; i < count; i++) {
                assertThat(round.answers.get(i)).as("lease %d", i).isEqualTo(i % 7 == 3 ? "refused" : "extended");
            }
            assertThat(round.answered.get()).as("each lease answered once").isEqualTo(count);
            assertThat((Long) server.get().command("PTTL", "round:2499")).isGreaterThan(8_000L);
            assertThat((Long) server.get().command("PTTL", "round:2495")).as("someone else's").isLessThanOrEqualTo(5_000L);
            assertThat(batch.stats()).isEqualTo(new RenewalBatch.Stats(1, count, 1, 3));
        } finally {
            client.shutdown();
        }
    }

    /** Names and holder ids are written by the batch itself, not by Lettuce: every byte must be the same. */
    @Test
    void namesAndHoldersOfAnyAlphabetAndLengthReachTheServerIntact() throws Exception {
        String[] names = {"a", "café:ü", "ключ", "🔒-lock", "{tag}:名前", "x".repeat(10), "y".repeat(1_234), ""};
        RedisClient client = RedisClient.create(server.get().uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            Round round = new Round(names.length, Duration.ofSeconds(9)) {
                @Override
                public String name(int lease) {
                    return names[lease];
                }

                @Override
                public String holder(int lease) {
                    return "holder-é-" + names[lease];
                }
            };
            for (int i = 0; i < names.length; i++) {
                connection.sync().set("intact:" + names[i], round.holder(i), io.lettuce.core.SetArgs.Builder.px(5_000));
            }
            RenewalBatch batch = new RenewalBatch(connection.async(), new RedisScripts().renewBatch, key -> 0,
                    Function.identity());
            batch.send(round, name -> "intact:" + name);
            assertThat(round.await()).isTrue();
            for (int i = 0; i < names.length; i++) {
                assertThat(round.answers.get(i)).as("lease %d", i).isEqualTo("extended");
                assertThat(connection.sync().pttl("intact:" + names[i])).as("lease %d", i).isGreaterThan(8_000L);
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aFailedCallFailsEachOfItsLeasesOnceWithOneTranslatedError() throws Exception {
        RedisClient client = RedisClient.create(server.get().uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            AtomicInteger translations = new AtomicInteger();
            RenewalBatch batch = new RenewalBatch(connection.async(),
                    RedisScript.load("/dev/leasehold/redis/test/failing_renewal.lua"), key -> 0, error -> {
                        translations.incrementAndGet();
                        return new IllegalStateException("translated", error);
                    });
            Round round = new Round(3, Duration.ofSeconds(9));
            batch.send(round, UnaryOperator.identity());
            assertThat(round.await()).isTrue();

            assertThat(translations.get()).as("one translation per call, not per lease").isEqualTo(1);
            assertThat(round.answers.get(0)).isEqualTo("failed: translated");
            assertThat(round.failures.get(0)).isSameAs(round.failures.get(1)).isSameAs(round.failures.get(2));
            assertThat(round.answered.get()).isEqualTo(3);
        } finally {
            client.shutdown();
        }
    }

    /** A round of leases named by their index, held by "holder-" + index, recording each answer. */
    private static class Round implements RenewalRound {

        private final int size;
        private final Duration ttl;
        private final AtomicReferenceArray<String> answers;
        private final AtomicReferenceArray<Throwable> failures;
        private final AtomicInteger answered = new AtomicInteger();
        private final CountDownLatch done;

        Round(int size, Duration ttl) {
            this.size = size;
            this.ttl = ttl;
            this.answers = new AtomicReferenceArray<>(size);
            this.failures = new AtomicReferenceArray<>(size);
            this.done = new CountDownLatch(size);
        }

        boolean await() throws InterruptedException {
            return done.await(10, TimeUnit.SECONDS);
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public String name(int lease) {
            return Integer.toString(lease);
        }

        @Override
        public String holder(int lease) {
            return "holder-" + lease;
        }

        @Override
        public Duration ttl(int lease) {
            return ttl;
        }

        @Override
        public void answer(int lease, boolean extended) {
            record(lease, extended ? "extended" : "refused");
        }

        @Override
        public void fail(int lease, Throwable error) {
            failures.set(lease, error);
            record(lease, "failed: " + error.getMessage());
        }

        private void record(int lease, String answer) {
            answered.incrementAndGet();
            answers.set(lease, answer);
            done.countDown();
        }
    }
}
