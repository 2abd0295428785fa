package dev.leasehold.engine;

import dev.leasehold.micrometer.DefaultAcquireObservationConvention;
import dev.leasehold.micrometer.MicrometerLeaseEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The engine settings every backend's builder inherits: defaults, bounds checked at once, events. */
class EngineBuilderTest {

    private static final class Builder extends EngineBuilder<Builder> {
        @Override
        protected Builder self() {
            return this;
        }
    }

    @Test
    void defaultsAreTheEnginesAndSettersChain() {
        LeaseEngine.Settings defaults = new Builder().engineSettings();
        assertThat(defaults).isEqualTo(LeaseEngine.Settings.defaults());

        Builder builder = new Builder().operationTimeout(Duration.ofMillis(250)).maxRecheck(Duration.ofMillis(40));
        assertThat(builder.engineSettings().operationTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(builder.operationTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(builder.maxRecheck()).isEqualTo(Duration.ofMillis(40));
    }

    @Test
    void everySetterRefusesBadValuesAtOnceNamingTheSetting() {
        Builder builder = new Builder();
        assertThatThrownBy(() -> builder.operationTimeout(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> builder.operationTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> builder.maxRecheck(Duration.ofMinutes(6))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxRecheck");
        assertThatThrownBy(() -> builder.meterRegistry(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.leaseEvents(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(builder.engineSettings()).as("a refused value changes nothing").isEqualTo(LeaseEngine.Settings.defaults());
    }

    @Test
    void meterRegistryAndLeaseEventsReplaceEachOther() {
        LeaseEvents mine = new LeaseEvents() {
        };
        Builder builder = new Builder().meterRegistry(new SimpleMeterRegistry()).leaseEvents(mine);
        assertThat(builder.engineSettings().events()).isSameAs(mine);
        builder.meterRegistry(new SimpleMeterRegistry());
        assertThat(builder.engineSettings().events()).isNotSameAs(mine).isNotSameAs(LeaseEvents.NONE);
    }

    @Test
    void observationsGoAlongWithTheMeters() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        TestObservationRegistry observations = TestObservationRegistry.create();
        LeaseEvents events = new Builder().meterRegistry(meters).observationRegistry(observations, false)
                .engineSettings().events();
        events.acquireStarted("a", "lock", "here").notGranted(AcquireOutcome.FAILED, new IllegalStateException("no"));
        events.acquireEnded("lock", AcquireOutcome.ACQUIRED, 1_000);
        assertThat(meters.get(MicrometerLeaseEvents.ACQUIRE_WAIT).timer().count()).isEqualTo(1);
        TestObservationRegistryAssert.assertThat(observations).hasSingleObservationThat()
                .hasNameEqualTo(DefaultAcquireObservationConvention.NAME).hasBeenStopped();
        assertThatThrownBy(() -> new Builder().observationRegistry(null, false)).isInstanceOf(IllegalArgumentException.class);
    }
}
