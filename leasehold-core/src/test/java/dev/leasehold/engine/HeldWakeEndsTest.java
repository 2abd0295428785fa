package dev.leasehold.engine;

import dev.leasehold.LockOptions;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.ForwardingLockProtocol;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.Wake;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An attempt that finds the lock held when its wait is already over ends the wake its backend gave
 * it ({@link Attempt.Held#wake()}): on etcd that wake is a watch on the holder's key, and a try
 * with no wait on a long-held lock (a scheduled job skipping its turn) would otherwise leave one
 * more watch open at every try, until the holder released.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HeldWakeEndsTest {

    private final InMemoryLockProtocol backend = new InMemoryLockProtocol();
    private final List<CompletableFuture<Wake>> wakes = new CopyOnWriteArrayList<>();
    /** The in-memory backend, giving every held attempt a wake of its own, as a watching backend does. */
    private final LockProtocol watching = new ForwardingLockProtocol(backend) {
        @Override
        public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
            return super.tryAcquire(request).thenApply(attempt -> {
                if (attempt instanceof Attempt.Held held) {
                    CompletableFuture<Wake> wake = new CompletableFuture<>();
                    wakes.add(wake);
                    return new Attempt.Held(held.remaining(), wake);
                }
                return attempt;
            });
        }
    };
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50)), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void aTryWithoutWaitOnAHeldLockEndsItsWake() {
        backend.grantTo("job", "another client", Duration.ofSeconds(30));

        assertThat(engine.lock("job", LockOptions.defaults(), watching).tryAcquire(Duration.ZERO)).isEmpty();

        assertThat(wakes).hasSize(1);
        assertThat(wakes.get(0)).as("the wake of an attempt nobody waits on").isCancelled();
    }
}
