package dev.leasehold.examples;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.FenceGuard;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipListener;
import dev.leasehold.LeadershipOptions;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.MultiLease;
import dev.leasehold.redis.RedisLocks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/locks.md: each kind of the lock family, on one real Redis server. */
class LockFamilyExamplesTest {

    private static LockClient locks;
    private final FenceGuard guard = new InMemoryFenceGuard();
    private final Map<String, Object> store = new ConcurrentHashMap<>();
    private final List<Long> terms = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void connect() {
        locks = RedisLocks.connect(Servers.redisUri());
    }

    @AfterAll
    static void close() {
        locks.close();
    }

    @Test
    void leaseScopedWork() throws Exception {
        DistributedLock lock = locks.lock("payment:7");
        // tag::call[]
        String receipt = lock.call(Duration.ofSeconds(5), () -> {
            long token = Lease.current().token();              // bound to this thread while the work runs
            return guard.admit("payment:7", token, () -> "charged under " + token);
        });                                                    // released; interrupted if the lease is lost
        // end::call[]
        assertThat(receipt).startsWith("charged under ");
    }

    @Test
    void fairLock() {
        // tag::fair[]
        DistributedLock lock = locks.fairLock("invoice:42");
        try (Lease lease = lock.acquire(Duration.ofSeconds(30))) {   // granted in arrival order across clients
            guard.admit("invoice:42", lease, () -> store.put("invoice:42", "paid"));
        }
        // end::fair[]
        assertThat(store).containsEntry("invoice:42", "paid");
    }

    @Test
    void readWriteLock() {
        // tag::read-write[]
        DistributedReadWriteLock prices = locks.readWriteLock("prices");
        try (Lease read = prices.readLock().acquire(Duration.ofSeconds(5))) {
            System.out.println("price " + store.get("prices"));     // many readers at once
        }
        try (Lease write = prices.writeLock().acquire(Duration.ofSeconds(5))) {
            guard.admit("prices", write, () -> store.put("prices", 42));   // alone; its token beats every reader's
        }
        // end::read-write[]
        assertThat(store).containsEntry("prices", 42);
    }

    @Test
    void semaphore() {
        // tag::semaphore[]
        DistributedSemaphore exports = locks.semaphore("exports", 3);
        try (Lease permit = exports.acquire(Duration.ofSeconds(10))) {   // at most 3 exports run at once
            store.put("export:" + permit.token(), "running");
            System.out.println(exports.available() + " permits free");  // a snapshot
        }
        // end::semaphore[]
        assertThat(store).hasSize(1);
        assertThat(exports(3).available()).isEqualTo(3);
    }

    private static DistributedSemaphore exports(int permits) {
        return locks.semaphore("exports", permits);
    }

    @Test
    void multiLock() {
        // tag::multi-lock[]
        try (MultiLease both = locks.multiLock("account:1", "account:2").acquire(Duration.ofSeconds(5))) {
            guard.admit("account:1", both.lease("account:1"), () -> store.put("account:1", -10));
            guard.admit("account:2", both.lease("account:2"), () -> store.put("account:2", +10));
        }                                                      // all parts or none; taken in name order
        // end::multi-lock[]
        assertThat(store).containsEntry("account:1", -10).containsEntry("account:2", 10);
    }

    @Test
    void holdAtLeast() {
        // tag::hold-at-least[]
        DistributedLock nightly = locks.lock("nightly", LockOptions.defaults().holdAtLeast(Duration.ofMinutes(5)));
        nightly.tryAcquire(Duration.ZERO).ifPresent(lease -> {
            try (lease) {
                store.put("report", lease.token());            // only one instance gets here per 5 minutes
            }
        });
        // end::hold-at-least[]
        assertThat(store).containsKey("report");
        assertThat(nightly.tryAcquire(Duration.ZERO)).as("held on the server after the release").isEmpty();
    }

    @Test
    void leaderElection() throws InterruptedException {
        // tag::leadership[]
        Leadership leadership = locks.leadership("scheduler", LeadershipOptions.defaults()
                .withLockOptions(LockOptions.watchdog(Duration.ofSeconds(10)))
                .withLeaderId("node-a").withValue("10.0.0.1:8080"));
        leadership.start(new LeadershipListener() {
            @Override
            public void onElected(Lease term) {
                try {
                    term.call(() -> lead(term.token()));       // interrupted when the term ends
                } catch (Exception ended) {
                    // the term is over
                }
            }

            @Override
            public void onRevoked(String reason) {
                System.out.println("no longer leader: " + reason);
            }
        });
        Optional<LeaderInfo> leader = locks.leadership("scheduler").currentLeader();   // any client, candidate or not
        // end::leadership[]
        assertThat(leader).isNotNull();
        Lease term = leadership.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // On a loaded machine the record's first write may time out; the leader retries it within ttl/3.
        while ((terms.isEmpty() || locks.leadership("scheduler").currentLeader().isEmpty()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(locks.leadership("scheduler").currentLeader()).hasValueSatisfying(info -> {
            assertThat(info.leaderId()).isEqualTo("node-a");
            assertThat(info.token()).isEqualTo(term.token());
            assertThat(info.value()).hasValue("10.0.0.1:8080");
        });
        leadership.close();
        assertThat(terms).containsExactly(term.token());
    }

    /** The leader's loop: works (here: notes its term) until its term ends. */
    private Void lead(long token) throws InterruptedException {
        terms.add(token);
        Thread.sleep(Long.MAX_VALUE);
        return null;
    }
}
