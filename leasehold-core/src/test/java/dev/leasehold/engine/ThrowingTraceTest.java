package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A trace that throws (an observation handler's bug) must not reach the engine: thrown while a grant
 * was delivered it left the caller waiting with the lock held by nobody, and thrown at the release it
 * kept the lock's local queue from moving on.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThrowingTraceTest {

    private final InMemoryLockProtocol backend = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50))
            .withEvents(new LeaseEvents() {
                @Override
                public AcquisitionTrace acquireStarted(String lockName, String kind, String backend) {
                    return new AcquisitionTrace() {
                        @Override
                        public void granted() {
                            throw new IllegalStateException("handler bug in granted");
                        }

                        @Override
                        public void notGranted(AcquireOutcome outcome, Throwable error) {
                            throw new IllegalStateException("handler bug in notGranted");
                        }

                        @Override
                        public void leaseLost(LossReason reason, LeaseLostException error) {
                            throw new IllegalStateException("handler bug in leaseLost");
                        }

                        @Override
                        public void leaseEnded() {
                            throw new IllegalStateException("handler bug in leaseEnded");
                        }
                    };
                }
            }), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void theLockWorksWhateverItsTraceThrows() {
        Lease first = engine.lock("name", LockOptions.watchdog(Duration.ofSeconds(30)), backend).acquire(Duration.ofSeconds(5));
        assertThat(first.release()).isEqualTo(ReleaseStatus.RELEASED);

        Lease second = engine.lock("name", LockOptions.watchdog(Duration.ofSeconds(30)), backend).acquire(Duration.ofSeconds(2));
        assertThat(second.token()).as("the local queue moved on after the release").isGreaterThan(first.token());
        assertThat(engine.lock("name", LockOptions.watchdog(Duration.ofSeconds(30)), backend).tryAcquire(Duration.ZERO))
                .as("a try that is not granted ends normally").isEmpty();
        second.release();
    }
}
