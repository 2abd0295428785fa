package dev.leasehold.redis;

import dev.leasehold.engine.LeaseEvents;
import dev.leasehold.micrometer.MicrometerLeaseEvents;
import dev.leasehold.spi.Args;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.redis.internal.LettuceConnections;
import io.micrometer.core.instrument.MeterRegistry;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The settings every Redis-based client shares, with their defaults and bounds in one place:
 * {@link RedisLocks.Builder} and leasehold-redlock's builder extend it. Each setter validates its
 * argument at once.
 *
 * @param <B> the concrete builder, returned by every setter for chaining
 */
public abstract class RedisClientBuilder<B extends RedisClientBuilder<B>> {

    private Path trustedCertificate;
    private Duration operationTimeout = LeaseEngine.Settings.DEFAULT_OPERATION_TIMEOUT;
    private Duration maxRecheck = LeaseEngine.Settings.DEFAULT_MAX_RECHECK;
    private Duration fenceRetention = RedisLocks.DEFAULT_FENCE_RETENTION;
    private LeaseEvents events = LeaseEvents.NONE;

    protected RedisClientBuilder() {
    }

    /** This builder, as its concrete type. */
    protected abstract B self();

    /**
     * A PEM file of CA certificates to trust for {@code rediss://}, e.g. a private CA.
     *
     * @throws IllegalArgumentException if it is null or not a readable file
     */
    public B trustedCertificate(Path pemFile) {
        this.trustedCertificate = LettuceConnections.trustedCertificate(pemFile);
        return self();
    }

    /**
     * Bound on every single server call, one whole attempt, renewal or release, and on connecting
     * (default 3 s): an acquire returns or throws within its wait plus this; a dead server is
     * reported after at most this.
     *
     * @throws IllegalArgumentException if outside [1 ms, 5 min]
     */
    public B operationTimeout(Duration timeout) {
        this.operationTimeout = Args.within("operationTimeout", timeout, Duration.ofMillis(1), Duration.ofMinutes(5));
        return self();
    }

    /**
     * Longest a waiter sleeps between attempts when no release notification arrives (default 1 s,
     * jittered down to half, and at most a third of the lock's ttl): what a lost notification
     * costs at most.
     *
     * @throws IllegalArgumentException if outside [1 ms, 5 min]
     */
    public B maxRecheck(Duration maxRecheck) {
        this.maxRecheck = Args.within("maxRecheck", maxRecheck, Duration.ofMillis(1), Duration.ofMinutes(5));
        return self();
    }

    /**
     * How long a fence key (the last token issued for a lock name) outlives its last write
     * (default 10 min). Tokens are {@code max(last + 1, server time in µs)}, so after the fence key
     * expired they still grow, unless the server clock stepped back (or, across servers, differs)
     * by more than this.
     *
     * @throws IllegalArgumentException if outside [1 s, 30 days]
     */
    public B fenceRetention(Duration retention) {
        this.fenceRetention = Args.within("fenceRetention", retention, Duration.ofSeconds(1), Duration.ofDays(30));
        return self();
    }

    /**
     * Reports Leasehold's meters ({@code leasehold.acquire.wait}, {@code leasehold.lease.held},
     * {@code leasehold.renewal.failures}, {@code leasehold.lease.lost},
     * {@code leasehold.lease.overrun}, {@code leasehold.leases.active}; see
     * {@link MicrometerLeaseEvents}) to {@code registry}. Without this call the client has no
     * meters and needs no Micrometer on the class path.
     *
     * @throws IllegalArgumentException if registry is null
     */
    public B meterRegistry(MeterRegistry registry) {
        this.events = MicrometerLeaseEvents.of(registry);
        return self();
    }

    /**
     * Reports the engine's events to {@code events}: for a monitoring system other than Micrometer.
     * Replaces a {@link #meterRegistry} given before, and the other way round.
     *
     * @throws IllegalArgumentException if events is null
     */
    public B leaseEvents(LeaseEvents events) {
        this.events = LeaseEvents.require(events);
        return self();
    }

    /** The trusted CA file, or {@code null} for the JDK's default trust store. */
    protected Path trustedCertificate() {
        return trustedCertificate;
    }

    protected Duration operationTimeout() {
        return operationTimeout;
    }

    protected Duration fenceRetention() {
        return fenceRetention;
    }

    /** The engine settings these choose. */
    protected LeaseEngine.Settings engineSettings() {
        return new LeaseEngine.Settings(operationTimeout, maxRecheck, events);
    }
}
