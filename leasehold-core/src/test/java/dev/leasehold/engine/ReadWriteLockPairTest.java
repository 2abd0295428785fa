package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.ReentrantLeaseLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pair's own rule, on in-memory protocols: a thread holding one lock through its Java view is
 * refused a blocking acquire of the other, before any backend call; nothing else is refused.
 */
class ReadWriteLockPairTest {

    private final InMemoryLockProtocol readProtocol = new InMemoryLockProtocol();
    private final InMemoryLockProtocol writeProtocol = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50)), "in-memory");
    private final ReadWriteLockPair pair = ReadWriteLockPair.of(engine, "pair", LockOptions.defaults(),
            readProtocol, writeProtocol);

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void anUpgradeIsRefusedBeforeAnyBackendCallAndAllowedOnceTheReadLockIsReleased() {
        ReentrantLeaseLock read = pair.readLock().asJavaLock();
        ReentrantLeaseLock write = pair.writeLock().asJavaLock();
        read.lock();
        read.lock();
        assertThatThrownBy(write::lock).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds the read lock of 'pair'").hasMessageContaining("never upgraded");
        assertThatThrownBy(() -> pair.writeLock().tryAcquire(Duration.ZERO)).isInstanceOf(IllegalStateException.class);
        assertThat(writeProtocol.acquireCalls()).as("refused locally").isZero();
        read.unlock();
        assertThatThrownBy(write::tryLock).as("one hold is left").isInstanceOf(IllegalStateException.class);
        read.unlock();
        assertThat(write.tryLock()).isTrue();
        write.unlock();
    }

    @Test
    void aDowngradeIsRefusedToo() {
        ReentrantLeaseLock write = pair.writeLock().asJavaLock();
        write.lock();
        assertThatThrownBy(() -> pair.readLock().acquire(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds the write lock of 'pair'").hasMessageContaining("release the write lock first");
        assertThat(readProtocol.acquireCalls()).isZero();
        write.unlock();
    }

    @Test
    void otherThreadsAndAsyncAcquiresAreNotRefused() throws Exception {
        ReentrantLeaseLock read = pair.readLock().asJavaLock();
        read.lock();
        Lease fromAnotherThread = CompletableFuture.supplyAsync(() -> pair.writeLock().acquire(Duration.ofSeconds(1)))
                .get(5, TimeUnit.SECONDS);
        fromAnotherThread.release();
        Lease async = pair.writeLock().acquireAsync(Duration.ofSeconds(1)).get(5, TimeUnit.SECONDS);
        async.release();
        read.unlock();
        assertThat(pair.name()).isEqualTo("pair");
        assertThat(pair.writeLock().name()).isEqualTo("pair");
        assertThat(pair.writeLock().asJavaLock()).isSameAs(pair.writeLock().asJavaLock());
    }
}
