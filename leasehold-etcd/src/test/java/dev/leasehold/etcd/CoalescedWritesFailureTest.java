package dev.leasehold.etcd;

import dev.leasehold.LockKind;
import dev.leasehold.engine.Futures;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.grpc.Status;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A coalesced {@code Txn} ({@link QueueWrites}) that etcd refuses as a whole fails only the
 * acquisitions that would have failed alone: a user allowed the names of one team only, whose client
 * sends an acquisition of another team's name among its own while one of its calls is in flight
 * (the member frozen with SIGSTOP, so that they queue behind it). etcd refuses the whole {@code Txn}
 * for the one key out of bounds; the acquisitions in it are then sent alone (each creates its key if
 * absent, so a repeat is safe), and only the other team's fails, with the refusal a lone attempt
 * gets, leaving no key. (With one nested {@code Txn} per acquisition, etcd 3.4.23 granted the other
 * team's key: it does not check the permissions of a put nested in a {@code Txn}.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CoalescedWritesFailureTest {

    private static final String PASSWORD = "c0alesce-Pa55";
    private static final Duration TTL = Duration.ofSeconds(10);
    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    @BeforeAll
    static void allowOneTeamsNamesOnly() throws Exception {
        // Keys from "team/a:" up to (not including) "team/a;": the names that begin with "a:".
        EtcdUsers.enable(cluster.get().endpoints(), "app", PASSWORD, "team/a:", "team/a;");
    }

    @Test
    void aTxnRefusedForOneKeyFailsThatAcquisitionAloneAndGrantsTheOthers() throws Exception {
        CountedCalls calls = new CountedCalls();
        try (Client client = Client.builder().endpoints(cluster.get().endpoints()).user(bytes("app"))
                .password(bytes(PASSWORD)).interceptor(calls).build()) {
            Sessions sessions = new Sessions(client);
            EtcdQueueProtocol protocol = new EtcdQueueProtocol(client,
                    new Acquisitions(client, sessions, Duration.ofSeconds(10)), "team/", LockKind.MUTEX, true, "etcd");
            long first = token(protocol.tryAcquire(request("a:first")).get(5, TimeUnit.SECONDS));

            calls.clear();
            List<CompletableFuture<Attempt>> attempts = WhileFrozen.each(cluster.get(),
                    List.of("a:1", "a:2", "b:other-team", "a:3"), name -> protocol.tryAcquire(request(name)));
            long alone = token(attempts.get(0).get(10, TimeUnit.SECONDS));
            long second = token(attempts.get(1).get(10, TimeUnit.SECONDS));
            long third = token(attempts.get(3).get(10, TimeUnit.SECONDS));
            assertThatThrownBy(() -> attempts.get(2).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .satisfies(e -> assertThat(Status.fromThrowable(Futures.unwrap(e)).getCode())
                            .isEqualTo(Status.Code.PERMISSION_DENIED));
            assertThat(calls.calls()).as("the first alone, the three behind it together (refused), then each alone")
                    .containsExactly("Txn", "Txn", "Txn", "Txn", "Txn");
            assertThat(List.of(alone, second, third)).allMatch(token -> token > first);

            for (String name : List.of("a:first", "a:1", "a:2", "a:3")) {
                assertThat(protocol.release(name, "h-" + name).get(5, TimeUnit.SECONDS).released()).as(name).isTrue();
            }
            sessions.close(3_000);
        }
        try (Client root = Client.builder().endpoints(cluster.get().endpoints()).user(bytes("root"))
                .password(bytes("root-" + PASSWORD)).build()) {
            assertThat(root.getKVClient().get(bytes("team/"), GetOption.builder().isPrefix(true).withCountOnly(true).build())
                    .get(5, TimeUnit.SECONDS).getCount()).as("no key left, none of the other team's").isZero();
        }
    }

    private static AcquireRequest request(String name) {
        return new AcquireRequest(name, "h-" + name, TTL, false, System.nanoTime());
    }

    private static long token(Attempt attempt) {
        assertThat(attempt).isInstanceOf(Attempt.Acquired.class);
        return ((Attempt.Acquired) attempt).token();
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
