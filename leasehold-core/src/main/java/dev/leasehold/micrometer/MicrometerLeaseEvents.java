package dev.leasehold.micrometer;

import dev.leasehold.engine.AcquireOutcome;
import dev.leasehold.engine.LeaseEvents;
import dev.leasehold.engine.LossReason;
import dev.leasehold.spi.Args;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.lang.ref.WeakReference;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Leasehold's meters in a Micrometer {@link MeterRegistry}, fed by the engine's
 * {@link LeaseEvents}:
 * <ul>
 *   <li>{@value #ACQUIRE_WAIT} (timer; tags {@code kind} = the lock kind, {@code outcome} =
 *       {@code acquired}, {@code timeout}, {@code skipped} (the elapsed wait of a {@code tryAcquire}
 *       or {@code tryCall}) or {@code unavailable}): how long acquisitions waited;</li>
 *   <li>{@value #LEASE_HELD} (timer): how long leases were held, from grant to release or loss;</li>
 *   <li>{@value #RENEWAL_FAILURES} (counter): renewals that got no answer and were retried;</li>
 *   <li>{@value #LEASE_LOST} (counter; tag {@code reason} = {@code expired}, {@code max_hold},
 *       {@code refused}, {@code backend} or {@code client_closed}): leases lost;</li>
 *   <li>{@value #LEASE_OVERRUN} (counter): leases whose holder released or checked them after
 *       they had been lost, i.e. work that ran past its lease; once per lease;</li>
 *   <li>{@value #RELEASE_FAILURES} (counter): releases of held leases that could not reach the
 *       backend (an error or the operation timeout); each such key expires by its ttl;</li>
 *   <li>{@value #LEASES_ACTIVE} (gauge): leases held right now.</li>
 * </ul>
 * No tag carries a lock name. Every client built with the same registry reports into the same
 * meters (the gauge counts the leases of all of them).
 *
 * <p>Micrometer is an optional dependency of Leasehold: this class is loaded only when a builder
 * is given a registry, so applications without Micrometer never need it on their class path.
 */
public final class MicrometerLeaseEvents implements LeaseEvents {

    public static final String ACQUIRE_WAIT = "leasehold.acquire.wait";
    public static final String LEASE_HELD = "leasehold.lease.held";
    public static final String RENEWAL_FAILURES = "leasehold.renewal.failures";
    public static final String LEASE_LOST = "leasehold.lease.lost";
    public static final String LEASE_OVERRUN = "leasehold.lease.overrun";
    public static final String LEASES_ACTIVE = "leasehold.leases.active";
    public static final String RELEASE_FAILURES = "leasehold.release.failures";

    /**
     * One instance per registry while clients use it, held weakly both ways, so the cache never keeps
     * a registry alive: clients hold the instance, the instance holds its registry.
     */
    private static final Map<MeterRegistry, WeakReference<MicrometerLeaseEvents>> BY_REGISTRY = new WeakHashMap<>();

    /** The gauge's count per registry: a later instance for the same registry must count into the gauge registered first. */
    private static final Map<MeterRegistry, AtomicLong> ACTIVE = new WeakHashMap<>();

    private final MeterRegistry registry;
    private final Map<String, Timer> acquireWait = new ConcurrentHashMap<>();
    private final Timer held;
    private final Counter renewalFailures;
    private final Map<LossReason, Counter> lost = new EnumMap<>(LossReason.class);
    private final Counter overrun;
    private final Counter releaseFailures;
    private final AtomicLong active;

    private MicrometerLeaseEvents(MeterRegistry registry, AtomicLong active) {
        this.registry = registry;
        this.active = active;
        this.held = Timer.builder(LEASE_HELD)
                .description("How long leases were held, from grant to release or loss")
                .register(registry);
        this.renewalFailures = Counter.builder(RENEWAL_FAILURES)
                .description("Lease renewals that got no answer (error or timeout) and were retried")
                .register(registry);
        for (LossReason reason : LossReason.values()) {
            lost.put(reason, Counter.builder(LEASE_LOST)
                    .description("Leases lost, by reason")
                    .tag("reason", reason.tag())
                    .register(registry));
        }
        this.overrun = Counter.builder(LEASE_OVERRUN)
                .description("Leases released or checked by their holder after they had been lost: work that ran past its lease")
                .register(registry);
        this.releaseFailures = Counter.builder(RELEASE_FAILURES)
                .description("Releases of held leases that could not reach the backend; their keys expire by their ttl")
                .register(registry);
        Gauge.builder(LEASES_ACTIVE, active, AtomicLong::get)
                .description("Leases held right now")
                .strongReference(true)
                .register(registry);
    }

    /**
     * The events that update Leasehold's meters in {@code registry}; the same instance for the same
     * registry, so any number of clients may share it.
     *
     * @throws IllegalArgumentException if registry is null
     */
    public static LeaseEvents of(MeterRegistry registry) {
        Args.notNull("registry", registry);
        synchronized (BY_REGISTRY) {
            WeakReference<MicrometerLeaseEvents> cached = BY_REGISTRY.get(registry);
            MicrometerLeaseEvents events = cached == null ? null : cached.get();
            if (events == null) {
                events = new MicrometerLeaseEvents(registry, ACTIVE.computeIfAbsent(registry, r -> new AtomicLong()));
                BY_REGISTRY.put(registry, new WeakReference<>(events));
            }
            return events;
        }
    }

    @Override
    public void acquireEnded(String kind, AcquireOutcome outcome, long waitNanos) {
        String tagKind = Objects.requireNonNullElse(kind, "lock");
        acquireWait.computeIfAbsent(tagKind + '\n' + outcome.tag(), key -> Timer.builder(ACQUIRE_WAIT)
                        .description("How long acquisitions waited, by lock kind and outcome")
                        .tag("kind", tagKind)
                        .tag("outcome", outcome.tag())
                        .register(registry))
                .record(waitNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void leaseStarted() {
        active.incrementAndGet();
    }

    @Override
    public void leaseEnded(long heldNanos) {
        active.decrementAndGet();
        held.record(heldNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void renewalFailed() {
        renewalFailures.increment();
    }

    @Override
    public void leaseLost(LossReason reason) {
        lost.get(reason).increment();
    }

    @Override
    public void leaseOverrun() {
        overrun.increment();
    }

    @Override
    public void releaseFailed() {
        releaseFailures.increment();
    }
}
