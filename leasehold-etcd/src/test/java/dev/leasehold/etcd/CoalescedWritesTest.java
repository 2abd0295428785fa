package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acquisitions and releases that one client sends while one of its own is on the wire go out in one
 * etcd {@code Txn} ({@link QueueWrites}), on a real cluster: the member is frozen (SIGSTOP) so that
 * the first call stays in flight while the others queue behind it. Calls are counted by a gRPC
 * interceptor.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CoalescedWritesTest {

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));
    private static final Duration TTL = Duration.ofSeconds(10);

    @Test
    void acquisitionsAndReleasesQueuedBehindACallInFlightGoOutAsOneTxnEach() throws Exception {
        CountedCalls calls = new CountedCalls();
        try (Client client = calls.client(cluster.get().endpoints())) {
            Sessions sessions = new Sessions(client);
            EtcdQueueProtocol protocol = new EtcdQueueProtocol(client,
                    new Acquisitions(client, sessions, Duration.ofSeconds(10)), "coalesced/", LockKind.MUTEX, true, "etcd");
            long first = token(protocol.tryAcquire(request("first", "h-first")).get(5, TimeUnit.SECONDS));

            calls.clear();
            List<CompletableFuture<Attempt>> attempts = WhileFrozen.each(cluster.get(), List.of("a", "b", "c", "d"),
                    name -> protocol.tryAcquire(request(name, "h-" + name)));
            List<Long> tokens = new ArrayList<>();
            for (CompletableFuture<Attempt> attempt : attempts) {
                tokens.add(token(attempt.get(10, TimeUnit.SECONDS)));
            }
            assertThat(calls.calls()).as("the first alone, the three that queued behind it in one Txn")
                    .containsExactly("Txn", "Txn");
            assertThat(tokens.get(0)).isGreaterThan(first);
            assertThat(tokens.subList(1, 4)).as("one Txn, one revision: keys of different names share it")
                    .containsOnly(tokens.get(1)).allMatch(token -> token > tokens.get(0));

            calls.clear();
            List<CompletableFuture<ReleaseOutcome>> releases = WhileFrozen.each(cluster.get(), List.of("a", "b", "c", "d"),
                    name -> protocol.release(name, "h-" + name));
            for (CompletableFuture<ReleaseOutcome> release : releases) {
                assertThat(release.get(10, TimeUnit.SECONDS).released()).isTrue();
            }
            assertThat(calls.calls()).as("the first release alone, the three behind it in one Txn")
                    .containsExactly("Txn", "Txn");
            protocol.release("first", "h-first").get(5, TimeUnit.SECONDS);
            assertThat(keysUnder(client, "coalesced/")).isZero();
            sessions.close(3_000);
        }
    }

    @Test
    void twoAcquisitionsOfOneNameNeverShareATxnSoTheirTokensDiffer() throws Exception {
        CountedCalls calls = new CountedCalls();
        try (Client client = calls.client(cluster.get().endpoints())) {
            Sessions sessions = new Sessions(client);
            Acquisitions acquisitions = new Acquisitions(client, sessions, Duration.ofSeconds(10));
            EtcdQueueProtocol permits = new EtcdQueueProtocol(client, acquisitions, "coalesced/",
                    new LockKind.Permits(5), true, "etcd");
            long first = token(permits.tryAcquire(request("shared", "h-0")).get(5, TimeUnit.SECONDS));

            calls.clear();
            List<CompletableFuture<Attempt>> attempts = WhileFrozen.each(cluster.get(), List.of(request("shared", "h-1"),
                    request("shared", "h-2"), request("shared", "h-3"), request("other", "h-other")), permits::tryAcquire);
            List<Long> tokens = new ArrayList<>();
            for (CompletableFuture<Attempt> attempt : attempts) {
                tokens.add(token(attempt.get(10, TimeUnit.SECONDS)));
            }
            assertThat(tokens.subList(0, 3)).as("the permits of one name, each in a Txn of its own")
                    .doesNotHaveDuplicates().isSorted().allMatch(token -> token > first);
            assertThat(calls.calls()).as("the first permit alone, then the second with the other name, then the third")
                    .containsExactly("Txn", "Txn", "Txn");
            assertThat(tokens.get(3)).as("the other name went with the second permit").isEqualTo(tokens.get(1));
            for (int i = 0; i <= 3; i++) {
                permits.release("shared", "h-" + i).get(5, TimeUnit.SECONDS);
            }
            permits.release("other", "h-other").get(5, TimeUnit.SECONDS);
            sessions.close(3_000);
        }
    }

    @Test
    void sixteenThreadsOfOneClientKeepEveryNamesTokensIncreasingAndLeaveNoKey() throws Exception {
        CountedCalls calls = new CountedCalls();
        int threads = 16;
        int rounds = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (Client client = calls.client(cluster.get().endpoints());
             EtcdLockClient locks = EtcdLocks.using(client)) {
            calls.clear();
            List<Future<List<Long>>> perThread = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String name = "busy:" + t;
                perThread.add(pool.submit(() -> {
                    List<Long> tokens = new ArrayList<>();
                    for (int i = 0; i < rounds; i++) {
                        try (Lease lease = locks.lock(name, LockOptions.watchdog(TTL)).acquire(Duration.ofSeconds(10))) {
                            tokens.add(lease.token());
                        }
                    }
                    return tokens;
                }));
            }
            for (Future<List<Long>> tokens : perThread) {
                assertThat(tokens.get(50, TimeUnit.SECONDS)).hasSize(rounds).doesNotHaveDuplicates().isSorted();
            }
            List<String> sent = calls.calls();
            long writes = sent.stream().filter(call -> call.equals("Txn")).count();
            assertThat(writes).as("never more than one call per acquisition and release")
                    .isLessThanOrEqualTo(2L * threads * rounds);
            assertThat(keysUnder(client, "leasehold/busy")).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    private static AcquireRequest request(String name, String holder) {
        return new AcquireRequest(name, holder, TTL, false, System.nanoTime());
    }

    private static long token(Attempt attempt) {
        assertThat(attempt).isInstanceOf(Attempt.Acquired.class);
        return ((Attempt.Acquired) attempt).token();
    }

    private static long keysUnder(Client client, String prefix) throws Exception {
        return client.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
                GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(5, TimeUnit.SECONDS).getCount();
    }
}
