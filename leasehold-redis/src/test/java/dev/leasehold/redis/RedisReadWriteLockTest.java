package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.ReentrantLeaseLock;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The read-write lock across clients and threads, against a real redis-server: readers share,
 * a writer shares with nobody, a waiting writer is not starved, tokens order writers after
 * readers, upgrades are refused, and a crashed reader or writer blocks only until it expires.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisReadWriteLockTest {

    /** One lease as the test saw it: from the acquire's return to just before its release. */
    private record Hold(String kind, long token, long startNanos, long endNanos) {

        boolean overlaps(Hold other) {
            return startNanos < other.endNanos && other.startNanos < endNanos;
        }
    }

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private final List<RedisLockClient> clients = Collections.synchronizedList(new ArrayList<>());
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private String name;

    @org.junit.jupiter.api.BeforeEach
    void name(TestInfo info) {
        name = "rw:" + info.getTestMethod().orElseThrow().getName() + ":" + System.nanoTime();
    }

    @AfterEach
    void closeAll() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        clients.forEach(RedisLockClient::close);
    }

    /** A client whose waiters re-check only every 10 s: a prompt wake-up is a notification's doing. */
    private RedisLockClient client() {
        RedisLockClient client = RedisLocks.builder().uri(server.get().uri()).maxRecheck(Duration.ofSeconds(10)).connect();
        clients.add(client);
        return client;
    }

    private DistributedReadWriteLock rw(RedisLockClient client) {
        return client.readWriteLock(name);
    }

    /** Holds the lease for {@code holdMillis}, recording it, then releases it. */
    private static Hold hold(String kind, Lease lease, long holdMillis) throws InterruptedException {
        long start = System.nanoTime();
        Thread.sleep(holdMillis);
        long end = System.nanoTime();
        lease.release();
        return new Hold(kind, lease.token(), start, end);
    }

    @Test
    void readersOnSeveralThreadsAndClientsHoldAtOnce() throws Exception {
        List<DistributedReadWriteLock> locks = List.of(rw(client()), rw(client()));
        int readers = 6;
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Hold>> holds = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            DistributedLock read = locks.get(i % 2).readLock();
            holds.add(threads.submit(() -> {
                go.await();
                Lease lease = read.acquire(Duration.ofSeconds(10));
                mostAtOnce.accumulateAndGet(holding.incrementAndGet(), Math::max);
                long start = System.nanoTime();
                Thread.sleep(300);
                holding.decrementAndGet();
                long end = System.nanoTime();
                lease.release();
                return new Hold("read", lease.token(), start, end);
            }));
        }
        go.countDown();
        List<Hold> done = new ArrayList<>();
        for (Future<Hold> hold : holds) {
            done.add(hold.get(30, TimeUnit.SECONDS));
        }
        System.out.println("readers holding at once, at most: " + mostAtOnce.get() + " of " + readers);
        assertThat(mostAtOnce.get()).as("readers holding at once").isGreaterThanOrEqualTo(2);
        long overlapping = done.stream().filter(a -> done.stream().anyMatch(b -> a != b && a.overlaps(b))).count();
        assertThat(overlapping).as("read leases that overlapped another").isGreaterThanOrEqualTo(2);
        assertThat(done.stream().map(Hold::token).distinct().count()).as("each lease its own token").isEqualTo(readers);
    }

    @Test
    void aWriterOverlapsNobodyAndItsTokenExceedsEveryEarlierOne() throws Exception {
        List<DistributedReadWriteLock> locks = List.of(rw(client()), rw(client()));
        List<Hold> holds = Collections.synchronizedList(new ArrayList<>());
        long stopAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            boolean writer = i % 4 == 0;
            DistributedReadWriteLock lock = locks.get(i % 2);
            workers.add(threads.submit(() -> {
                while (System.nanoTime() < stopAt) {
                    Lease lease = (writer ? lock.writeLock() : lock.readLock()).acquire(Duration.ofSeconds(20));
                    holds.add(hold(writer ? "write" : "read", lease, writer ? 20 : 40));
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(40, TimeUnit.SECONDS);
        }
        List<Hold> writes = holds.stream().filter(h -> h.kind().equals("write")).toList();
        List<Hold> reads = holds.stream().filter(h -> h.kind().equals("read")).toList();
        System.out.println("holds recorded: " + writes.size() + " write, " + reads.size() + " read");
        assertThat(writes).as("writers got in").hasSizeGreaterThanOrEqualTo(4);
        assertThat(reads).as("readers got in").hasSizeGreaterThanOrEqualTo(4);
        for (Hold write : writes) {
            for (Hold other : holds) {
                if (other != write) {
                    assertThat(write.overlaps(other)).as("%s overlaps %s", write, other).isFalse();
                    if (other.endNanos() <= write.startNanos()) {
                        assertThat(write.token()).as("token after %s", other).isGreaterThan(other.token());
                    }
                }
            }
        }
    }

    @Test
    void aStreamOfReadersDoesNotStarveAWaitingWriter() throws Exception {
        List<DistributedReadWriteLock> locks = List.of(rw(client()), rw(client()));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger readLeases = new AtomicInteger();
        AtomicInteger readersHolding = new AtomicInteger();
        CountDownLatch streaming = new CountDownLatch(4 * 3);
        List<Future<?>> readers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            DistributedLock read = locks.get(i % 2).readLock();
            readers.add(threads.submit(() -> {
                while (!stop.get()) {
                    Lease lease = read.acquire(Duration.ofSeconds(30));
                    readersHolding.incrementAndGet();
                    readLeases.incrementAndGet();
                    streaming.countDown();
                    Thread.sleep(60);
                    readersHolding.decrementAndGet();
                    lease.release();
                }
                return null;
            }));
        }
        assertThat(streaming.await(20, TimeUnit.SECONDS)).as("the readers stream").isTrue();

        long asked = System.nanoTime();
        Optional<Lease> write = rw(client()).writeLock().tryAcquire(Duration.ofSeconds(10));
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
        assertThat(write).as("the writer got in despite the readers").isPresent();
        assertThat(readersHolding.get()).as("no reader holds beside the writer").isZero();
        int readsBefore = readLeases.get();
        Thread.sleep(200);
        assertThat(readLeases.get()).as("no reader enters while the writer holds").isEqualTo(readsBefore);
        write.get().release();
        System.out.println("the writer waited " + waitedMillis + " ms for a stream of 4 readers holding 60 ms each");
        assertThat(waitedMillis).as("bounded by the readers' holds, not by the stream").isLessThan(5_000);

        long released = System.nanoTime();
        while (readLeases.get() == readsBefore) {
            Thread.sleep(5);
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released))
                .as("the writer's release wakes the waiting readers (re-check is 10 s)").isLessThan(3_000);
        stop.set(true);
        for (Future<?> reader : readers) {
            reader.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWaitingWriterIsWokenByTheLastReadersRelease() throws Exception {
        DistributedReadWriteLock mine = rw(client());
        Lease first = mine.readLock().acquire(Duration.ZERO);
        Lease second = mine.readLock().acquire(Duration.ZERO);
        Future<Lease> writer = threads.submit(() -> rw(client()).writeLock().acquire(Duration.ofSeconds(30)));
        Thread.sleep(300);
        assertThat(mine.readLock().tryAcquire(Duration.ZERO)).as("a new reader yields to the waiting writer").isEmpty();
        first.release();
        Thread.sleep(200);
        assertThat(writer.isDone()).as("one reader still holds").isFalse();
        long released = System.nanoTime();
        second.release();
        Lease write = writer.get(5, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).as("woken, not re-checked").isLessThan(3_000);
        assertThat(write.token()).isGreaterThan(second.token()).isGreaterThan(first.token());
        write.release();
    }

    @Test
    void aReadLeasesTokenIsBelowALaterWritersToken() {
        DistributedReadWriteLock lock = rw(client());
        Lease read = lock.readLock().acquire(Duration.ZERO);
        read.release();
        Lease write = lock.writeLock().acquire(Duration.ZERO);
        assertThat(write.token()).isGreaterThan(read.token());
        write.release();
        Lease laterRead = lock.readLock().acquire(Duration.ZERO);
        assertThat(laterRead.token()).isGreaterThan(write.token());
        laterRead.release();
    }

    @Test
    void anUpgradeThroughTheJavaViewIsRefusedWithTheReasonAndTheWayOut() throws Exception {
        DistributedReadWriteLock lock = rw(client());
        ReentrantLeaseLock read = lock.readLock().asJavaLock();
        ReentrantLeaseLock write = lock.writeLock().asJavaLock();
        read.lock();
        for (Runnable upgrade : List.<Runnable>of(write::lock, write::tryLock,
                () -> lock.writeLock().acquire(Duration.ofSeconds(1)))) {
            assertThatThrownBy(upgrade::run).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("holds the read lock of '" + name + "'")
                    .hasMessageContaining("never upgraded")
                    .hasMessageContaining("release the read lock first");
        }
        assertThatThrownBy(() -> write.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        assertThat(write.isHeldByCurrentThread()).isFalse();
        assertThat(rw(client()).readLock().tryAcquire(Duration.ZERO))
                .as("the refused upgrade registered no writer: other readers still enter").isPresent().get()
                .satisfies(Lease::release);

        assertThat(threads.submit(() -> write.tryLock(100, TimeUnit.MILLISECONDS)).get())
                .as("another thread may ask: it simply waits for the reader").isFalse();

        read.unlock();
        write.lock();
        assertThatThrownBy(read::lock).as("a downgrade would wait for this thread's own writer")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("release the write lock first");
        write.unlock();
        read.lock();
        read.unlock();
    }

    @Test
    void aCrashedReaderLetsTheWriterInAfterItsTtl() throws Exception {
        Duration ttl = Duration.ofMillis(800);
        RedisLockClient crashed = client();
        Lease reader = crashed.readWriteLock(name, LockOptions.fixedLease(ttl)).readLock().acquire(Duration.ZERO);
        long taken = System.nanoTime();
        Lease write = rw(client()).writeLock().acquire(Duration.ofSeconds(10));
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - taken);
        assertThat(waitedMillis).as("the reader's lease ran out first").isGreaterThanOrEqualTo(ttl.toMillis() - 50);
        assertThat(waitedMillis).as("the writer went in soon after the ttl").isLessThan(ttl.toMillis() + 2_000);
        assertThat(write.token()).isGreaterThan(reader.token());
        assertThat(reader.isValid()).isFalse();
        write.release();
    }

    @Test
    void aWriterThatGivesUpStopsBlockingReadersAtOnce() {
        DistributedReadWriteLock lock = rw(client());
        Lease reader = lock.readLock().acquire(Duration.ZERO);
        assertThat(rw(client()).writeLock().tryAcquire(Duration.ofMillis(300))).isEmpty();
        Optional<Lease> next = rw(client()).readLock().tryAcquire(Duration.ZERO);
        assertThat(next).as("not blocked until the writer's registration expires").isPresent();
        next.get().release();
        reader.release();
        assertThat(ServerProbe.keysWithoutTtl(server.get())).isEmpty();
    }

    @Test
    void theWriteLockAndAPlainMutexOfTheSameNameExcludeEachOther() {
        RedisLockClient client = client();
        Lease mutex = client.lock(name).acquire(Duration.ZERO);
        assertThat(rw(client()).writeLock().tryAcquire(Duration.ofMillis(100))).isEmpty();
        mutex.release();
        Lease write = rw(client()).writeLock().acquire(Duration.ZERO);
        assertThat(write.token()).isGreaterThan(mutex.token());
        assertThat(client.lock(name).tryAcquire(Duration.ofMillis(100))).isEmpty();
        write.release();
    }
}
