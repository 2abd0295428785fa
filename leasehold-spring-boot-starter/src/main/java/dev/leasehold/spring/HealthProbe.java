package dev.leasehold.spring;

import dev.leasehold.LockClient;
import dev.leasehold.redis.RedisLockClient;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The one round trip behind both health indicators (Spring Boot 4's and 3's): the read-only
 * script of {@link RedisLockClient#inspect(String)} on {@link LeaseholdHealthIndicator#PROBE_NAME}.
 * It writes nothing; a failure is thrown, which the indicators report as DOWN. A
 * {@link LazyRedisLockClient} not connected yet tries to connect first, so the indicator turns UP as
 * soon as the server answers.
 */
final class HealthProbe {

    /** The message both indicators report with a DOWN. */
    static final String FAILURE = "Leasehold's Redis health check failed";

    private final LockClient described;
    private final Supplier<RedisLockClient> connected;

    HealthProbe(RedisLockClient client) {
        this(client, () -> client);
    }

    HealthProbe(LazyRedisLockClient client) {
        this(client, client::connected);
    }

    private HealthProbe(LockClient described, Supplier<RedisLockClient> connected) {
        this.described = described;
        this.connected = connected;
    }

    /** Reports the server (without credentials) first, so a DOWN report names it too, then probes. */
    Map<String, Object> run(BiConsumer<String, Object> server) {
        server.accept("server", described.describe());
        RedisLockClient client = connected.get();
        long start = System.nanoTime();
        client.inspect(LeaseholdHealthIndicator.PROBE_NAME);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("roundTrip", Duration.ofNanos(System.nanoTime() - start).toString());
        details.put("heldLeases", client.heldLeases());
        return details;
    }
}
