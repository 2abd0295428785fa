package dev.leasehold.redis;

import dev.leasehold.BrokenLock;
import dev.leasehold.LockInfo;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.StaleTokenException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Administration on a real server: {@link RedisLockClient#list} and {@link RedisLockClient#breakLock}. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisAdminTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(RedisLockClient::close);
        clients.clear();
        server.get().command("FLUSHALL");
    }

    private RedisLockClient client() {
        RedisLockClient client = RedisLocks.builder().uri(server.get().uri()).maxRecheck(Duration.ofSeconds(10)).connect();
        clients.add(client);
        return client;
    }

    @Test
    void listFindsEveryHeldLockAmongManyKeysInBoundedScans() {
        RedisLockClient client = client();
        int held = RedisLockClient.SCAN_BATCH * 2 + 500;
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < held; i++) {
            leases.add(client.lock("job:" + i).acquire(WAIT));
        }
        // Noise: plain data, a released lock's leftover fence, a foreign SET NX lock, other kinds.
        for (int i = 0; i < 500; i++) {
            server.get().command("SET", "cache:" + i, "value " + i);
        }
        client.lock("job:released").acquire(WAIT).release();
        server.get().command("SET", "job:python", "redis-py-token", "PX", "60000");
        Lease reader = client.readWriteLock("job:rw").readLock().acquire(WAIT);
        long scansBefore = ServerProbe.calls(server.get(), "scan");

        List<LockInfo> jobs = client.list("job:*");

        assertThat(ServerProbe.calls(server.get(), "scan") - scansBefore).as("several bounded SCAN steps")
                .isGreaterThanOrEqualTo(3);
        assertThat(ServerProbe.calls(server.get(), "keys")).as("never KEYS").isZero();
        assertThat(jobs).as("every held lock and the read-held name").hasSize(held + 1);
        assertThat(jobs).extracting(LockInfo::name).doesNotContain("job:released", "job:python")
                .contains("job:0", "job:" + (held - 1), "job:rw").isSorted();
        assertThat(jobs.stream().filter(info -> info.name().equals("job:rw")).findFirst().orElseThrow().kind())
                .hasValue(LockKind.READ);
        LockInfo first = jobs.stream().filter(info -> info.name().equals("job:7")).findFirst().orElseThrow();
        assertThat(first.holder()).hasValueSatisfying(holder -> assertThat(holder).hasSize(7).endsWith("…"));
        assertThat(first.remaining()).hasValueSatisfying(ttl -> assertThat(ttl).isPositive());
        assertThat(first.lastToken()).hasValue(leases.get(7).token());

        assertThat(client.list("job:1?")).extracting(LockInfo::name)
                .containsExactly("job:10", "job:11", "job:12", "job:13", "job:14", "job:15", "job:16", "job:17",
                        "job:18", "job:19");
        assertThat(client.list("cache:*")).isEmpty();
        assertThat(client.list("nothing:*")).isEmpty();
        assertThatThrownBy(() -> client.list("")).isInstanceOf(IllegalArgumentException.class);
        leases.forEach(Lease::release);
        reader.release();
        assertThat(client.list("job:*")).isEmpty();
    }

    @Test
    void aBrokenHolderLosesItsLeaseAtItsNextRenewalAndItsTokenIsRefused() throws Exception {
        RedisLockClient holderClient = client();
        Duration ttl = Duration.ofMillis(600);
        Lease broken = holderClient.lock("acct:9", LockOptions.watchdog(ttl)).acquire(WAIT);
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        guard.admit("acct:9", broken.token(), () -> "first write");

        RedisLockClient waiterClient = client();
        CompletableFuture<Lease> waiting = waiterClient.lock("acct:9").acquireAsync(Duration.ofSeconds(20));
        ServerProbe.awaitWaiters(server.get(), "{acct:9}:waiters", 1);

        RedisLockClient admin = client();
        long brokeAt = System.nanoTime();
        Optional<BrokenLock> report = admin.breakLock("acct:9", "stuck batch job, ticket OPS-12");

        assertThat(report).hasValueSatisfying(r -> {
            assertThat(r.fence()).isGreaterThanOrEqualTo(broken.token());
            assertThat(r.holder()).endsWith("…");
            assertThat(r.reason()).isEqualTo("stuck batch job, ticket OPS-12");
        });
        LeaseLostException lost = broken.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        long lostAfterMillis = (System.nanoTime() - brokeAt) / 1_000_000;
        assertThat(lost.getMessage()).as("found by a renewal, not by the deadline").contains("renewal").contains("no key");
        // A renewal every ttl/3, plus the break's own round trip and scheduling on a loaded machine.
        assertThat(lostAfterMillis).as("within its next renewal (every ttl/3)").isLessThanOrEqualTo(ttl.toMillis() / 3 + 300);

        Lease next = waiting.get(2, TimeUnit.SECONDS); // woken by the break, not by a 10 s re-check
        assertThat(next.token()).isGreaterThan(report.get().fence()).isGreaterThan(broken.token());
        guard.admit("acct:9", next.token(), () -> "next holder's write");
        assertThatThrownBy(() -> guard.admit("acct:9", broken.token(), () -> "broken holder's late write"))
                .isInstanceOf(StaleTokenException.class);

        @SuppressWarnings("unchecked")
        Map<String, String> audit = toMap((List<Object>) server.get().command("HGETALL", "{acct:9}:broken"));
        assertThat(audit).containsEntry("reason", "stuck batch job, ticket OPS-12")
                .containsEntry("fence", Long.toString(report.get().fence()))
                .containsEntry("by", report.get().by()).containsKeys("holder", "at");
        assertThat(audit.get("holder")).endsWith("…").hasSize(7);
        assertThat((Long) server.get().command("PTTL", "{acct:9}:broken")).isPositive()
                .isLessThanOrEqualTo(RedisLockClient.BREAK_AUDIT_RETENTION.toMillis());
        assertThat(broken.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(next.isValid()).as("the broken holder's release spares the next holder").isTrue();
        next.release();
    }

    @Test
    void breakingAFreeLockWritesNothing() {
        RedisLockClient client = client();
        client.lock("free:1").acquire(WAIT).release();
        Object fence = server.get().command("GET", "{free:1}:fence");
        assertThat(client.breakLock("free:1", "just checking")).isEmpty();
        assertThat(server.get().command("GET", "{free:1}:fence")).isEqualTo(fence);
        assertThat(server.get().command("EXISTS", "{free:1}:broken")).isEqualTo(0L);
    }

    @Test
    void theFenceAdvancesEvenWhenItsKeyHadExpired() {
        Lease lease = client().lock("old:1").acquire(WAIT);
        server.get().command("DEL", "{old:1}:fence"); // held longer than the fence retention
        BrokenLock report = client().breakLock("old:1", "expired fence").orElseThrow();
        assertThat(report.fence()).isGreaterThan(lease.token());
        assertThat((Long) server.get().command("PTTL", "{old:1}:fence")).as("kept for the fence retention").isPositive();
        // Another client: this one's own lease still queues its acquisitions of the name locally.
        assertThat(client().lock("old:1").acquire(WAIT).token()).isGreaterThan(report.fence());
    }

    /** Every kind reads as what holds the name: the lock key's holder, the readers, the permits; queues as waiters. */
    @Test
    void inspectShowsEveryKindWithItsHoldersAndWaiters() throws Exception {
        RedisLockClient client = client();
        RedisLockClient other = client();
        try (Lease mutex = client.lock("kind:mutex").acquire(WAIT);
             Lease reader = client.readWriteLock("kind:rw").readLock().acquire(WAIT);
             Lease secondReader = other.readWriteLock("kind:rw").readLock().acquire(WAIT);
             Lease permit = client.semaphore("kind:sem", 3).acquire(WAIT);
             Lease secondPermit = other.semaphore("kind:sem", 3).acquire(WAIT);
             Lease fair = client.fairLock("kind:fair").acquire(WAIT)) {
            CompletableFuture<Lease> queued = other.fairLock("kind:fair").acquireAsync(Duration.ofSeconds(20))
                    .toCompletableFuture();
            ServerProbe.awaitWaiters(server.get(), "{kind:fair}:queue", 1);
            CompletableFuture<Lease> writer = other.readWriteLock("kind:rw").writeLock().acquireAsync(Duration.ofSeconds(20))
                    .toCompletableFuture();
            ServerProbe.awaitWaiters(server.get(), "{kind:rw}:writers", 1);

            LockInfo lock = client.inspect("kind:mutex");
            assertThat(lock.kind()).hasValue(LockKind.MUTEX);
            assertThat(lock.holders()).hasSize(1).allSatisfy(holder -> assertThat(holder).endsWith("…"));
            assertThat(lock.lastToken()).hasValue(mutex.token());

            LockInfo readers = client.inspect("kind:rw");
            assertThat(readers.kind()).hasValue(LockKind.READ);
            assertThat(readers.holders()).as("both readers").hasSize(2);
            assertThat(readers.remaining()).hasValueSatisfying(ttl -> assertThat(ttl).isPositive());
            assertThat(readers.waiters()).as("the waiting writer").isEqualTo(1);
            assertThat(readers.lastToken()).hasValue(Math.max(reader.token(), secondReader.token()));

            LockInfo permits = client.inspect("kind:sem");
            assertThat(permits.kind()).hasValue(LockKind.permits(3));
            assertThat(permits.holders()).as("two of three permits").hasSize(2);
            assertThat(permits.lastToken()).hasValue(secondPermit.token());

            LockInfo queue = client.inspect("kind:fair");
            assertThat(queue.kind()).hasValue(LockKind.MUTEX);
            assertThat(queue.waiters()).as("the fair queue").isEqualTo(1);

            assertThat(client.inspect("kind:free").isHeld()).isFalse();
            assertThat(client.inspect("kind:free").kind()).isEmpty();
            fair.release();
            queued.get(5, TimeUnit.SECONDS).release();
            reader.release();
            secondReader.release();
            writer.get(5, TimeUnit.SECONDS).release();
            assertThat(permit.token()).isPositive();
        }
    }

    /** list finds names held by readers and permits too (whose sorted sets SCAN finds), tagged names included. */
    @Test
    void listFindsEveryKindIncludingReadersAndPermits() {
        RedisLockClient client = client();
        try (Lease reader = client.readWriteLock("many:rw").readLock().acquire(WAIT);
             Lease tagged = client.readWriteLock("{many}:rw").readLock().acquire(WAIT);
             Lease permit = client.semaphore("many:sem", 2).acquire(WAIT);
             Lease writer = client.readWriteLock("many:w").writeLock().acquire(WAIT);
             Lease fair = client.fairLock("many:fair").acquire(WAIT)) {
            assertThat(client.list("many:*")).extracting(LockInfo::name)
                    .containsExactly("many:fair", "many:rw", "many:sem", "many:w");
            assertThat(client.list("many:*")).extracting(info -> info.kind().orElseThrow())
                    .containsExactly(LockKind.MUTEX, LockKind.READ, LockKind.permits(2), LockKind.MUTEX);
            assertThat(client.list("{many}:*")).extracting(LockInfo::name).containsExactly("{many}:rw");
            assertThat(client.list("*")).extracting(LockInfo::name).contains("{many}:rw", "many:rw", "many:sem");
            assertThat(reader.token() + tagged.token() + permit.token() + writer.token() + fair.token()).isPositive();
        }
        assertThat(client.list("*")).isEmpty();
    }

    /** A break deletes every reader, or every permit, and advances the fence past their tokens. */
    @Test
    void breakingAReadOrPermitHeldNameDeletesItsHoldersAndAdvancesTheFence() throws Exception {
        RedisLockClient holders = client();
        Lease reader = holders.readWriteLock("shared:rw", LockOptions.watchdog(Duration.ofMillis(600)))
                .readLock().acquire(WAIT);
        Lease secondReader = client().readWriteLock("shared:rw").readLock().acquire(WAIT);
        BrokenLock readers = client().breakLock("shared:rw", "stuck readers").orElseThrow();
        assertThat(readers.fence()).isGreaterThan(reader.token()).isGreaterThan(secondReader.token());
        assertThat(readers.holder()).endsWith("…");
        assertThat(server.get().command("EXISTS", "{shared:rw}:readers")).isEqualTo(0L);
        reader.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        try (Lease writer = client().readWriteLock("shared:rw").writeLock().acquire(WAIT)) {
            assertThat(writer.token()).isGreaterThan(readers.fence());
        }

        Lease permit = holders.semaphore("shared:sem", 2).acquire(WAIT);
        Lease secondPermit = client().semaphore("shared:sem", 2).acquire(WAIT);
        BrokenLock permits = client().breakLock("shared:sem", "stuck workers").orElseThrow();
        assertThat(permits.fence()).isGreaterThan(permit.token()).isGreaterThan(secondPermit.token());
        assertThat(server.get().command("EXISTS", "{shared:sem}:permits")).isEqualTo(0L);
        RedisLockClient next = client();
        assertThat(next.semaphore("shared:sem", 2).available()).as("every permit is free again").isEqualTo(2);
        try (Lease after = next.semaphore("shared:sem", 2).acquire(WAIT)) {
            assertThat(after.token()).isGreaterThan(permits.fence());
        }
        assertThat(client().breakLock("shared:sem", "again")).as("nothing held: nothing written").isEmpty();
    }

    @Test
    void badArgumentsAreRefused() {
        RedisLockClient client = client();
        assertThatThrownBy(() -> client.breakLock("x", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reason");
        assertThatThrownBy(() -> client.breakLock("x", "  ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.breakLock("x", "r".repeat(RedisLockClient.MAX_REASON_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.breakLock("{x}:fence", "r")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.breakLock(null, "r")).isInstanceOf(IllegalArgumentException.class);
    }

    private static Map<String, String> toMap(List<Object> flat) {
        Map<String, String> map = new java.util.HashMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            map.put((String) flat.get(i), (String) flat.get(i + 1));
        }
        return map;
    }
}
