package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.micrometer.DefaultAcquireObservationConvention;
import dev.leasehold.micrometer.DefaultLeaseObservationConvention;
import dev.leasehold.micrometer.MicrometerLeaseEvents;
import dev.leasehold.micrometer.ObservationLeaseEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ObservationLeaseEvents} fed by the engine over {@link InMemoryLockProtocol}: one
 * {@code leasehold.acquire} per acquisition and one {@code leasehold.lease} per hold, their
 * low-cardinality keys, the caller's observation as their parent, the error of a loss.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeaseEngineObservationsTest {

    private static final Duration LONG_TTL = Duration.ofSeconds(30);
    private static final String ACQUIRE = DefaultAcquireObservationConvention.NAME;
    private static final String LEASE = DefaultLeaseObservationConvention.NAME;

    private final TestObservationRegistry registry = TestObservationRegistry.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final InMemoryLockProtocol protocol = new InMemoryLockProtocol();
    private LeaseEngine engine = engine(ObservationLeaseEvents.of(registry));

    private LeaseEngine engine(LeaseEvents observations) {
        return new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50))
                .withEvents(LeaseEvents.both(MicrometerLeaseEvents.of(meters), observations)), "in-memory");
    }

    @AfterEach
    void close() {
        engine.close();
    }

    private DistributedLock lock(String name) {
        return engine.lock(name, LockOptions.watchdog(LONG_TTL), protocol);
    }

    @Test
    void theWaitAndTheHoldAreChildrenOfTheCallersObservation() {
        Observation request = Observation.start("request", registry);
        try (Observation.Scope ignored = request.openScope()) {
            lock("order:1").acquire(Duration.ofSeconds(1)).release();
        }
        request.stop();

        assertThat(registry).hasNumberOfObservationsWithNameEqualTo(ACQUIRE, 1)
                .hasNumberOfObservationsWithNameEqualTo(LEASE, 1);
        assertThat(registry).hasObservationWithNameEqualTo(ACQUIRE).that()
                .hasBeenStarted().hasBeenStopped().doesNotHaveError()
                .hasParentObservationEqualTo(request)
                .hasLowCardinalityKeyValue("leasehold.kind", "lock")
                .hasLowCardinalityKeyValue("leasehold.backend", "in-memory")
                .hasLowCardinalityKeyValue("leasehold.outcome", "acquired")
                .doesNotHaveHighCardinalityKeyValueWithKey("leasehold.lock.name");
        assertThat(registry).hasObservationWithNameEqualTo(LEASE).that()
                .hasBeenStopped().doesNotHaveError()
                .hasParentObservationEqualTo(request)
                .hasLowCardinalityKeyValue("leasehold.kind", "lock")
                .hasLowCardinalityKeyValue("leasehold.outcome", "released")
                .hasLowCardinalityKeyValue("leasehold.loss.reason", "none")
                .doesNotHaveHighCardinalityKeyValueWithKey("leasehold.lock.name");
        assertThat(meters.get(MicrometerLeaseEvents.LEASE_HELD).timer().count())
                .as("the meters go on beside the observations").isEqualTo(1);
    }

    @Test
    void withoutACurrentObservationTheyAreRoots() {
        lock("a").acquire(Duration.ofSeconds(1)).release();
        assertThat(registry).hasObservationWithNameEqualTo(ACQUIRE).that().doesNotHaveParentObservation();
        assertThat(registry).hasObservationWithNameEqualTo(LEASE).that().doesNotHaveParentObservation();
    }

    @Test
    void theLockNameIsAHighCardinalityValueOnlyWhenAskedFor() {
        engine.close();
        engine = engine(ObservationLeaseEvents.of(registry, true));
        lock("order:2").acquire(Duration.ofSeconds(1)).release();
        assertThat(registry).hasObservationWithNameEqualTo(ACQUIRE).that()
                .hasHighCardinalityKeyValue("leasehold.lock.name", "order:2")
                .doesNotHaveLowCardinalityKeyValueWithKey("leasehold.lock.name");
        assertThat(registry).hasObservationWithNameEqualTo(LEASE).that()
                .hasHighCardinalityKeyValue("leasehold.lock.name", "order:2");
    }

    @Test
    void aTimedOutWaitEndsWithItsErrorAndNoHold() {
        protocol.grantTo("busy", "someone-else", LONG_TTL);
        assertThatThrownBy(() -> lock("busy").acquire(Duration.ofMillis(100))).isInstanceOf(LockTimeoutException.class);
        assertThat(registry).hasObservationWithNameEqualTo(ACQUIRE).that()
                .hasBeenStopped().hasLowCardinalityKeyValue("leasehold.outcome", "timeout")
                .assertThatError().isInstanceOf(LockTimeoutException.class);
        assertThat(registry).hasNumberOfObservationsWithNameEqualTo(LEASE, 0);
    }

    @Test
    void aSkippedTryIsNoError() {
        protocol.grantTo("busy", "someone-else", LONG_TTL);
        assertThat(lock("busy").tryAcquire(Duration.ofMillis(50))).isEmpty();
        assertThat(registry).hasObservationWithNameEqualTo(ACQUIRE).that()
                .hasBeenStopped().doesNotHaveError().hasLowCardinalityKeyValue("leasehold.outcome", "skipped");
    }

    @Test
    void anUnreachableBackendIsUnavailable() {
        protocol.loseAcquireReplies(1);
        assertThatThrownBy(() -> lock("c").acquire(Duration.ofSeconds(1))).isInstanceOf(LockUnavailableException.class);
        assertThat(registry).hasObservationWithNameEqualTo(ACQUIRE).that()
                .hasLowCardinalityKeyValue("leasehold.outcome", "unavailable")
                .assertThatError().isInstanceOf(LockUnavailableException.class);
    }

    @Test
    void aCancelledWaitIsCancelled() {
        protocol.grantTo("busy", "someone-else", LONG_TTL);
        CompletableFuture<Lease> waiting = lock("busy").acquireAsync(Duration.ofSeconds(10));
        waiting.cancel(false);
        assertThat(registry).hasObservationWithNameEqualTo(ACQUIRE).that()
                .hasBeenStopped().doesNotHaveError().hasLowCardinalityKeyValue("leasehold.outcome", "cancelled");
        assertThat(registry).hasNumberOfObservationsWithNameEqualTo(LEASE, 0);
    }

    @Test
    void aLostLeaseEndsItsHoldWithTheLossAsError() throws Exception {
        // A 2 s ttl: its first renewal (at a third of it) finds the other holder and reports "refused";
        // with 150 ms, a renewal thread starved for 150 ms on a loaded machine let the lease expire first.
        Lease taken = engine.lock("taken", LockOptions.watchdog(Duration.ofSeconds(2)), protocol)
                .acquire(Duration.ofSeconds(1));
        protocol.expire("taken");
        protocol.grantTo("taken", "someone-else", LONG_TTL);
        // lost() completes after the loss and the end were reported.
        taken.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(registry).hasObservationWithNameEqualTo(LEASE).that()
                .hasBeenStopped()
                .hasLowCardinalityKeyValue("leasehold.outcome", "lost")
                .hasLowCardinalityKeyValue("leasehold.loss.reason", "refused")
                .assertThatError().isInstanceOf(LeaseLostException.class);
        assertThat(taken.release().name()).isEqualTo("ALREADY_LOST");
        assertThat(registry).hasNumberOfObservationsWithNameEqualTo(LEASE, 1);
    }

    @Test
    void aLeaseEndedByClosingTheClientIsLostAsClientClosed() {
        lock("open").acquire(Duration.ofSeconds(1));
        engine.close();
        assertThat(registry).hasObservationWithNameEqualTo(LEASE).that()
                .hasBeenStopped()
                .hasLowCardinalityKeyValue("leasehold.outcome", "lost")
                .hasLowCardinalityKeyValue("leasehold.loss.reason", "client_closed");
    }
}
