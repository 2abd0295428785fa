package dev.leasehold.etcd;

import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.etcd.internal.QueueKeys;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.fault.LostReleaseAnswer;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client's acquisitions of one name on its session reuse key names once their keys are deleted
 * ({@link KeyNumbers}), so etcd's index does not fill with a deleted key per acquisition; and a
 * release whose outcome was uncertain, or a delete that lands late, never touches the key of the
 * next acquisition under the same name.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdKeyNamesTest {

    private static final String PREFIX = "key-names/";

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    @Test
    void aNameLockedAgainAndAgainKeepsOneKeyNameWithRisingTokens() throws Exception {
        try (EtcdLockClient locks = client(cluster.get().endpoints());
             Client direct = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Set<String> names = new HashSet<>();
            long last = 0;
            for (int i = 0; i < 20; i++) {
                try (Lease lease = locks.lock("again").acquire(Duration.ofSeconds(5))) {
                    names.addAll(keys(direct, "again"));
                    assertThat(lease.token()).as("a new create revision on every acquisition").isGreaterThan(last);
                    last = lease.token();
                }
            }
            assertThat(names).as("one key name for 20 acquisitions one after another").hasSize(1);
            assertThat(keys(direct, "again")).isEmpty();
        }
    }

    @Test
    void leasesHeldAtOnceHaveKeysOfTheirOwnWhichLaterLeasesReuse() throws Exception {
        try (EtcdLockClient locks = client(cluster.get().endpoints());
             Client direct = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            DistributedReadWriteLock shared = locks.readWriteLock("readers");
            Set<String> first = new HashSet<>();
            try (Lease a = shared.readLock().acquire(Duration.ofSeconds(5));
                 Lease b = shared.readLock().acquire(Duration.ofSeconds(5))) {
                first.addAll(keys(direct, "readers"));
                assertThat(first).as("two readers of one client, two keys").hasSize(2);
            }
            try (Lease a = shared.readLock().acquire(Duration.ofSeconds(5));
                 Lease b = shared.readLock().acquire(Duration.ofSeconds(5))) {
                assertThat(keys(direct, "readers")).as("the same two names again").containsExactlyInAnyOrderElementsOf(first);
            }
        }
    }

    /**
     * The release's answer is lost and it is tried again: its first delete might still land, so the
     * key's number is never handed out again (guarded on the holder id, it could not delete another
     * key anyway: {@link #aDeleteOnlyRemovesTheKeyOfTheHolderItNames}).
     */
    @Test
    void aKeyWhoseReleaseFailedIsNeverNamedAgain() throws Exception {
        try (FaultProxy proxy = FaultProxy.start("127.0.0.1", cluster.get().clientPort(0));
             EtcdLockClient cut = client("http://" + proxy.host() + ":" + proxy.port());
             Client direct = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Lease lease = cut.lock("lost").acquire(Duration.ofSeconds(5));
            List<String> before = keys(direct, "lost");
            LostReleaseAnswer.Outcome outcome = LostReleaseAnswer.release(lease, List.of(proxy),
                    () -> keys(direct, "lost").isEmpty());
            assertThat(outcome.first()).as("the first release failed: its answer was lost (%s)", outcome).isNull();
            try (Lease next = cut.lock("lost").acquire(Duration.ofSeconds(5))) {
                assertThat(keys(direct, "lost")).hasSize(1).doesNotContainAnyElementsOf(before);
            }
        }
    }

    /**
     * Three deletes: the first alone while the member is frozen, the other two queued behind it and
     * sent as one {@code Txn}, one of them naming a holder whose key it is not. That {@code Txn}'s
     * guard fails, each is sent again alone, and only the keys of the holders named are deleted.
     */
    @Test
    void aDeleteOnlyRemovesTheKeyOfTheHolderItNames() throws Exception {
        try (Client client = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            QueueWrites writes = new QueueWrites(client, Duration.ofSeconds(1));
            for (String name : List.of("k0", "k1", "k2")) {
                client.getKVClient().put(bytes(PREFIX + "guard/" + name), bytes("holder-" + name)).get(5, TimeUnit.SECONDS);
            }
            assertThat(writes.delete(bytes(PREFIX + "guard/k0"), bytes("holder-k1")).get(5, TimeUnit.SECONDS))
                    .as("another holder's id").isFalse();
            List<CompletableFuture<Boolean>> deletes = WhileFrozen.each(cluster.get(), List.of("k0", "k1", "k2"),
                    name -> writes.delete(bytes(PREFIX + "guard/" + name),
                            bytes(name.equals("k1") ? "holder-someone-else" : "holder-" + name)));
            assertThat(deletes.get(0).get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(deletes.get(1).get(10, TimeUnit.SECONDS)).isFalse();
            assertThat(deletes.get(2).get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(keys(client, "guard")).containsExactly(PREFIX + "guard/k1");
        }
    }

    /**
     * What a break does after reading the queue, with the read key released and its name taken
     * again by the same client in between: the delete, guarded on the create revision read, spares
     * the newer key, whose token is above the break's fence.
     */
    @Test
    void aBreaksDeleteSparesANewerKeyOfTheSameName() throws Exception {
        try (EtcdLockClient locks = client(cluster.get().endpoints());
             Client direct = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Lease first = locks.lock("broken").acquire(Duration.ofSeconds(5));
            List<KeyValue> read = keyValues(direct, "broken");
            first.release();
            try (Lease second = locks.lock("broken").acquire(Duration.ofSeconds(5))) {
                assertThat(keys(direct, "broken")).as("the name reused")
                        .containsExactly(read.get(0).getKey().toString(StandardCharsets.UTF_8));
                new EtcdInspector(direct, PREFIX, "etcd", Duration.ofSeconds(5)).deleteUnchanged(read, "a break");
                assertThat(keyValues(direct, "broken")).singleElement()
                        .satisfies(kv -> assertThat(kv.getCreateRevision()).isEqualTo(second.token()));
            }
        }
    }

    /**
     * What a break does after reading the queue, with the holder's key moved meanwhile onto a new
     * lease of its own (an extension past its etcd lease's TTL): revoking the lease read no longer
     * deletes the key, so the break deletes it by what it finds on a second read.
     */
    @Test
    void aBreakDeletesAKeyItsHolderMovedToAnotherLeaseAfterTheRead() throws Exception {
        try (EtcdLockClient locks = client(cluster.get().endpoints());
             Client direct = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Lease lease = locks.lock("moved", LockOptions.fixedLease(Duration.ofSeconds(5))).acquire(Duration.ofSeconds(5));
            List<KeyValue> read = keyValues(direct, "moved");
            lease.extend(Duration.ofSeconds(30));
            assertThat(keyValues(direct, "moved")).singleElement().as("moved onto a new lease")
                    .satisfies(kv -> assertThat(kv.getLease()).isNotEqualTo(read.get(0).getLease()));
            new EtcdInspector(direct, PREFIX, "etcd", Duration.ofSeconds(5))
                    .deleteQueue(QueueKeys.of(PREFIX, "moved"), read, "a break");
            assertThat(keyValues(direct, "moved")).isEmpty();
        }
    }

    /**
     * A held lease's key is deleted and a key of the same name put back on the same session at once,
     * as a create of an earlier acquisition with the number would be if jetcd repeated it and its first
     * request landed late: the holder's next renewal finds a create revision that is not its own and
     * reports the lease lost, where a read by name alone would renew it.
     */
    @Test
    void aKeyOfTheSameNameMadeSinceIsNotTakenForTheHoldersOwn() throws Exception {
        try (EtcdLockClient locks = client(cluster.get().endpoints());
             Client direct = Client.builder().endpoints(cluster.get().endpoints()).build()) {
            Lease lease = locks.lock("reborn", LockOptions.watchdog(Duration.ofSeconds(3))).acquire(Duration.ofSeconds(5));
            KeyValue own = keyValues(direct, "reborn").get(0);
            direct.getKVClient().delete(own.getKey()).get(5, TimeUnit.SECONDS);
            direct.getKVClient().put(own.getKey(), bytes("an-earlier-holder"),
                    PutOption.builder().withLeaseId(own.getLease()).build()).get(5, TimeUnit.SECONDS);
            assertThat(lease.lost().toCompletableFuture()).as("lost at the next renewal, a second away")
                    .succeedsWithin(Duration.ofSeconds(10));
        }
    }

    @Test
    void idleNamesAreForgottenBeyondALimitAndTheirNextKeyIsNew() {
        KeyNumbers numbers = new KeyNumbers();
        KeyNumbers.Claim first = numbers.claim(bytes("trim/0"));
        first.free();
        assertThat(numbers.claim(bytes("trim/0")).number()).as("reused while remembered").isEqualTo(first.number());
        for (int i = 1; i <= KeyNumbers.IDLE_KEPT + 1; i++) {
            numbers.claim(bytes("trim/" + i)).free();
        }
        assertThat(numbers.names()).as("idle names dropped once past the limit").isLessThanOrEqualTo(KeyNumbers.IDLE_KEPT);
        assertThat(numbers.claim(bytes("trim/0")).number()).as("a forgotten name starts a block of fresh numbers")
                .isNotEqualTo(first.number());
        KeyNumbers.Claim retired = numbers.claim(bytes("retired"));
        retired.retire();
        assertThat(numbers.claim(bytes("retired")).number()).as("a retired number is never handed out again")
                .isNotEqualTo(retired.number());
    }

    private static EtcdLockClient client(String endpoints) {
        return EtcdLocks.builder().endpoints(endpoints).keyPrefix(PREFIX).operationTimeout(Duration.ofSeconds(2)).connect();
    }

    /** The names of the keys under {@code name}'s directory. */
    private static List<String> keys(Client client, String name) {
        return keyValues(client, name).stream().map(kv -> kv.getKey().toString(StandardCharsets.UTF_8)).toList();
    }

    /** The keys under {@code name}'s directory. */
    private static List<KeyValue> keyValues(Client client, String name) {
        try {
            return client.getKVClient().get(bytes(PREFIX + name + "/"), GetOption.builder().isPrefix(true).build())
                    .get(10, TimeUnit.SECONDS).getKvs();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
