package dev.leasehold.etcd;

import dev.leasehold.LockKind;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Coalesced writes ({@link QueueWrites}) whose answers are lost or refused, on a real member behind a
 * {@link FaultProxy} that holds its replies: each {@code Txn} commits (or is refused) while the
 * client waits, and the calls that queued behind the first leave together once the coalescer's
 * stall bound has passed. A connection reset then hides what committed (jetcd repeats the
 * {@code Txn}s it may repeat), or a session revoked meanwhile makes etcd refuse the shared one.
 * Whatever happens, each acquisition is granted once with the key the server holds under its holder
 * id (its token that key's create revision), a release never reports a key released while it stands,
 * an abandon of an acquisition waiting in the coalescer removes the key its shared {@code Txn} creates
 * later and no other, and no key is left behind.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CoalescedWritesLostAnswerTest {

    private static final Duration TTL = Duration.ofSeconds(10);
    private static final String PREFIX = "lost/";
    /** Enough for a coalescer's lane to move on after an answer (it does so on the thread that completes it). */
    private static final long LANE_SETTLE_MILLIS = 200;
    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    private final CountedCalls calls = new CountedCalls();
    private FaultProxy proxy;
    private Client client;
    private Sessions sessions;
    private EtcdQueueProtocol protocol;

    /** A client that reaches the member through a proxy of its own, its calls counted. */
    @BeforeEach
    void connectThroughAProxy() {
        proxy = FaultProxy.start("127.0.0.1", cluster.get().clientPort(0));
        client = calls.client("http://127.0.0.1:" + proxy.port());
        sessions = new Sessions(client);
        protocol = new EtcdQueueProtocol(client, new Acquisitions(client, sessions, Duration.ofSeconds(10)), PREFIX,
                LockKind.MUTEX, true, "etcd");
    }

    @AfterEach
    void close() {
        proxy.pass();
        sessions.close(3_000);
        client.close();
        proxy.close();
    }

    @Test
    void aSharedAcquisitionTxnWhoseAnswerIsLostGrantsEachOnceWithTheKeyItCreated() throws Exception {
        token(protocol.tryAcquire(request("first")).get(5, TimeUnit.SECONDS));

        List<String> names = List.of("x", "a", "b", "c");
        List<CompletableFuture<Attempt>> attempts = acquiredWhileRepliesHeld(names, attempt -> { });
        proxy.cutAll();
        proxy.pass();

        List<Long> tokens = new ArrayList<>();
        for (String name : names) {
            long token = token(attempts.get(names.indexOf(name)).get(20, TimeUnit.SECONDS));
            List<KeyValue> keys = keysOf(client, name);
            assertThat(keys).as(name + ": exactly one key").hasSize(1);
            assertThat(keys.get(0).getValue().toString(StandardCharsets.UTF_8)).as(name).isEqualTo("h-" + name);
            assertThat(token).as(name + ": the token is its key's create revision")
                    .isEqualTo(keys.get(0).getCreateRevision());
            tokens.add(token);
        }
        assertThat(tokens.subList(1, 4)).as("a, b and c hold the keys their shared Txn created")
                .containsOnly(tokens.get(1));
        releaseAll(List.of("first", "x", "a", "b", "c"));
    }

    @Test
    void anAbandonWhileItWaitsBehindACallInFlightRemovesTheKeyItsSharedTxnCreatesAndNoOther() throws Exception {
        token(protocol.tryAcquire(request("p0")).get(5, TimeUnit.SECONDS));

        List<String> names = List.of("p", "q", "r", "s");
        CompletableFuture<CompletableFuture<Void>> abandon = new CompletableFuture<>();
        List<CompletableFuture<Attempt>> attempts = acquiredWhileRepliesHeld(names,
                attempt -> {
                    // r waits in the coalescer behind p's Txn when it is cancelled and abandoned
                    attempt.get(names.indexOf("r")).cancel(true);
                    abandon.complete(protocol.abandon("r", "h-r"));
                });
        CompletableFuture<Void> abandoned = abandon.join();
        assertThat(abandoned).as("the abandon waits for the Txn that may create its key").isNotDone();
        proxy.pass();

        abandoned.get(10, TimeUnit.SECONDS);
        assertThat(keysOf(client, "r")).as("the abandoned acquisition's key, created by the shared Txn, is gone")
                .isEmpty();
        for (String name : List.of("p", "q", "s")) {
            long token = token(attempts.get(names.indexOf(name)).get(10, TimeUnit.SECONDS));
            List<KeyValue> keys = keysOf(client, name);
            assertThat(keys).as(name + ": the others keep theirs").hasSize(1);
            assertThat(token).as(name).isEqualTo(keys.get(0).getCreateRevision());
        }
        releaseAll(List.of("p0", "p", "q", "s"));
    }

    @Test
    void aSharedDeleteTxnWhoseAnswerIsLostNeverReportsReleasedWhileTheKeyStands() throws Exception {
        List<String> names = List.of("d1", "d2", "d3", "d4");
        for (String name : names) {
            token(protocol.tryAcquire(request(name)).get(5, TimeUnit.SECONDS));
        }
        calls.clear();
        proxy.holdReplies();
        List<CompletableFuture<ReleaseOutcome>> releases = new ArrayList<>();
        for (String name : names) {
            releases.add(protocol.release(name, "h-" + name));
        }
        awaitCalls(calls, 2);
        assertThat(calls.calls()).as("d1 alone, then d2, d3 and d4 together; both committed, neither answered")
                .containsExactly("Txn", "Txn");
        proxy.cutAll();
        proxy.pass();

        for (String name : names) {
            CompletableFuture<ReleaseOutcome> release = releases.get(names.indexOf(name));
            ReleaseOutcome outcome = settled(release);
            if (outcome != null && outcome.released()) {
                assertThat(keysOf(client, name)).as(name + " reported released").isEmpty();
            } else {
                // Not known: the acquisition is kept, so a release tried again settles it.
                ReleaseOutcome again = protocol.release(name, "h-" + name).get(10, TimeUnit.SECONDS);
                assertThat(keysOf(client, name)).as(name + " released again (" + again + ")").isEmpty();
            }
        }
        assertNoKeys(client, names);
    }

    @Test
    void aSessionRevokedUnderASharedTxnLosesItsKeysLoudlyAndTheAcquisitionsMoveToANewOne() throws Exception {
        try (Client admin = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Attempt.Acquired first = (Attempt.Acquired) protocol.tryAcquire(request("rv0")).get(5, TimeUnit.SECONDS);
            long revoked = keysOf(admin, "rv0").get(0).getLease();

            List<String> names = List.of("rv1", "rv2", "rv3", "rv4");
            List<CompletableFuture<Attempt>> attempts = acquiredWhileRepliesHeld(names, sent -> {
                while (keysOf(admin, "rv1").isEmpty()) { // rv1 creates its key on the session; the others wait
                    Thread.sleep(20);
                }
                admin.getLeaseClient().revoke(revoked).get(5, TimeUnit.SECONDS);
            });
            proxy.pass(); // the others' Txn went out on the revoked session: refused

            Attempt.Acquired beforeRevoke = (Attempt.Acquired) attempts.get(0).get(20, TimeUnit.SECONDS);
            assertThat(keysOf(admin, "rv1")).as("rv1's key went with the session").isEmpty();
            assertThat(beforeRevoke.lossSignal().toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .as("rv1 granted on the revoked session is told at once").contains(Sessions.LOST);
            assertThat(first.lossSignal().toCompletableFuture().get(10, TimeUnit.SECONDS)).contains(Sessions.LOST);
            for (String name : names.subList(1, 4)) {
                long token = token(attempts.get(names.indexOf(name)).get(20, TimeUnit.SECONDS));
                List<KeyValue> keys = keysOf(admin, name);
                assertThat(keys).as(name + ": on a new session").hasSize(1);
                assertThat(keys.get(0).getLease()).as(name).isNotEqualTo(revoked);
                assertThat(token).as(name).isEqualTo(keys.get(0).getCreateRevision());
                assertThat(protocol.release(name, "h-" + name).get(10, TimeUnit.SECONDS).released()).as(name).isTrue();
            }
            protocol.release("rv1", "h-rv1").get(10, TimeUnit.SECONDS);
            protocol.release("rv0", "h-rv0").get(10, TimeUnit.SECONDS);
            assertNoKeys(admin, List.of("rv0", "rv1", "rv2", "rv3", "rv4"));
        }
    }

    /**
     * Sends the acquisitions of {@code names} while the member's replies are held, runs
     * {@code meanwhile} on them while the first is on the wire and the others wait for it, and waits
     * until the others went out together, once the coalescer's stall bound had passed; neither Txn is
     * answered.
     */
    private List<CompletableFuture<Attempt>> acquiredWhileRepliesHeld(List<String> names, Meanwhile meanwhile)
            throws Exception {
        // The caller's thread wakes on the warm-up's answer before the session's lane moves on: until
        // it has, the first of these would wait in the lane and leave with the others.
        Thread.sleep(LANE_SETTLE_MILLIS);
        calls.clear();
        proxy.holdReplies();
        List<CompletableFuture<Attempt>> attempts = new ArrayList<>();
        for (String name : names) {
            attempts.add(protocol.tryAcquire(request(name)));
        }
        meanwhile.run(attempts);
        awaitCalls(calls, 2);
        assertThat(calls.calls()).as("the first alone, then the others together").containsExactly("Txn", "Txn");
        return attempts;
    }

    /** What a test does while the first acquisition is on the wire and the others wait behind it. */
    private interface Meanwhile {
        void run(List<CompletableFuture<Attempt>> sent) throws Exception;
    }

    /**
     * Waits until {@code count} calls were sent: the first alone, the others after the coalescer's
     * stall bound (1 s) without its answer.
     */
    private static void awaitCalls(CountedCalls calls, int count) throws InterruptedException {
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (calls.calls().size() < count && System.nanoTime() - giveUpAt < 0) {
            Thread.sleep(20);
        }
        Thread.sleep(200); // and no more
    }

    /** Releases each of {@code names}, each still held, and checks that none of their keys is left. */
    private void releaseAll(List<String> names) throws Exception {
        for (String name : names) {
            assertThat(protocol.release(name, "h-" + name).get(10, TimeUnit.SECONDS).released()).as(name).isTrue();
        }
        assertNoKeys(client, names);
    }

    private static void assertNoKeys(Client client, List<String> names) throws Exception {
        for (String name : names) {
            assertThat(keysOf(client, name)).as(name + ": no key left").isEmpty();
        }
    }


    /** The release's outcome, or null if it failed (the client could not tell what committed). */
    private static ReleaseOutcome settled(CompletableFuture<ReleaseOutcome> release) throws Exception {
        try {
            return release.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            return null;
        }
    }

    private static AcquireRequest request(String name) {
        return new AcquireRequest(name, "h-" + name, TTL, false, System.nanoTime());
    }

    private static long token(Attempt attempt) {
        assertThat(attempt).isInstanceOf(Attempt.Acquired.class);
        return ((Attempt.Acquired) attempt).token();
    }

    private static List<KeyValue> keysOf(Client client, String name) throws Exception {
        return client.getKVClient().get(ByteSequence.from(PREFIX + name + "/", StandardCharsets.UTF_8),
                GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS).getKvs();
    }
}
