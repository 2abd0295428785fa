package dev.leasehold.micrometer;

import dev.leasehold.engine.AcquireOutcome;
import dev.leasehold.engine.LeaseEvents;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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
    void aRegistryIsCollectedOnceTheApplicationAndItsClientsDroppedIt() throws InterruptedException {
        MeterRegistry registry = new SimpleMeterRegistry();
        LeaseEvents events = MicrometerLeaseEvents.of(registry);
        events.acquireEnded("lock", AcquireOutcome.ACQUIRED, 1_000);
        WeakReference<MeterRegistry> dropped = new WeakReference<>(registry);
        registry = null;
        events = null;
        collect(dropped);
        assertThat(dropped.get()).as("the registry, kept by nothing but Leasehold's cache").isNull();
    }

    @Test
    void everyMeterIsRecordedWhileAClientUsesARegistryOnlyItsExporterReads() throws InterruptedException {
        List<Meter> exported = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registry.config().onMeterAdded(exported::add);
        LeaseEvents events = MicrometerLeaseEvents.of(registry);
        WeakReference<MeterRegistry> unreferenced = new WeakReference<>(registry);
        registry = null;
        collect(unreferenced);
        events.acquireEnded("lock", AcquireOutcome.ACQUIRED, 1_000);
        assertThat(exported).extracting(meter -> meter.getId().getName()).contains(MicrometerLeaseEvents.ACQUIRE_WAIT);
    }

    @Test
    void aLaterClientOfTheSameRegistryCountsIntoTheSameGauge() throws InterruptedException {
        MeterRegistry registry = new SimpleMeterRegistry();
        LeaseEvents first = MicrometerLeaseEvents.of(registry);
        first.leaseStarted();
        WeakReference<LeaseEvents> gone = new WeakReference<>(first);
        first = null;
        collect(gone);
        MicrometerLeaseEvents.of(registry).leaseStarted();
        assertThat(registry.get(MicrometerLeaseEvents.LEASES_ACTIVE).gauge().value()).isEqualTo(2.0);
    }

    private static void collect(WeakReference<?> reference) throws InterruptedException {
        for (int i = 0; i < 50 && reference.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
    }
}
