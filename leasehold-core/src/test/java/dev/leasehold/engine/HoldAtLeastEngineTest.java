package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's side of {@link LockOptions#holdAtLeast} over {@link InMemoryLockProtocol}, which
 * does not implement {@link dev.leasehold.spi.LockProtocol#releaseHolding}: an early release fails
 * loudly and leaves the lock held rather than free it early; a late one deletes it as usual.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HoldAtLeastEngineTest {

    private final InMemoryLockProtocol protocol = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50)), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void anEarlyReleaseOnABackendThatCannotKeepTheLockFailsAndDoesNotFreeIt() {
        Lease lease = engine.lock("kept", LockOptions.defaults().holdAtLeast(Duration.ofSeconds(20)), protocol)
                .acquire(Duration.ofSeconds(1));
        assertThatThrownBy(lease::release).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("holdAtLeast").hasMessageContaining("kept");
        assertThat(lease.isValid()).isFalse();
        assertThat(engine.lock("kept", LockOptions.defaults(), protocol).tryAcquire(Duration.ZERO))
                .as("not deleted: it frees by its ttl").isEmpty();
    }

    @Test
    void aReleaseAfterHoldAtLeastDeletesTheLock() throws Exception {
        Lease lease = engine.lock("late", LockOptions.defaults().holdAtLeast(Duration.ofMillis(50)), protocol)
                .acquire(Duration.ofSeconds(1));
        Thread.sleep(100);
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        assertThat(engine.lock("late", LockOptions.defaults(), protocol).tryAcquire(Duration.ZERO)).isPresent();
    }
}
