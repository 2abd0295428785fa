package dev.leasehold.micrometer;

import dev.leasehold.engine.AcquireOutcome;
import dev.leasehold.engine.LeaseEvents;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MicrometerLeaseEventsTest {

    @Test
    void oneRegistryHasOneInstanceSoClientsShareTheGauge() {
        MeterRegistry registry = new SimpleMeterRegistry();
        assertThat(MicrometerLeaseEvents.of(registry)).isSameAs(MicrometerLeaseEvents.of(registry));
        assertThat(MicrometerLeaseEvents.of(new SimpleMeterRegistry())).isNotSameAs(MicrometerLeaseEvents.of(registry));
        assertThatThrownBy(() -> MicrometerLeaseEvents.of(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("registry");
    }

    @Test
    void aRegistryTheApplicationDroppedIsCollectedWhileAClientStillHoldsItsEvents() throws InterruptedException {
        MeterRegistry registry = new SimpleMeterRegistry();
        LeaseEvents events = MicrometerLeaseEvents.of(registry);
        events.acquireEnded("lock", AcquireOutcome.ACQUIRED, 1_000);
        WeakReference<MeterRegistry> dropped = new WeakReference<>(registry);
        registry = null;
        for (int i = 0; i < 50 && dropped.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(dropped.get()).as("the registry, kept by nothing but Leasehold's cache").isNull();
        events.acquireEnded("write", AcquireOutcome.TIMEOUT, 1_000);
        events.leaseStarted();
        events.leaseEnded(1_000);
    }
}
