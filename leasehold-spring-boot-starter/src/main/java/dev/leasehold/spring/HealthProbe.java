package dev.leasehold.spring;

import dev.leasehold.redis.RedisLockClient;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The one round trip behind both health indicators (Spring Boot 4's and 3's): the read-only
 * script of {@link RedisLockClient#inspect(String)} on {@link LeaseholdHealthIndicator#PROBE_NAME}.
 * It writes nothing; a failure is thrown, which the indicators report as DOWN.
 */
final class HealthProbe {

    private HealthProbe() {
    }

    /** Reports the server (without credentials) first, so a DOWN report names it too, then probes. */
    static Map<String, Object> run(RedisLockClient client, BiConsumer<String, Object> server) {
        server.accept("server", client.describe());
        long start = System.nanoTime();
        client.inspect(LeaseholdHealthIndicator.PROBE_NAME);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("roundTrip", Duration.ofNanos(System.nanoTime() - start).toString());
        details.put("heldLeases", client.heldLeases());
        return details;
    }
}
