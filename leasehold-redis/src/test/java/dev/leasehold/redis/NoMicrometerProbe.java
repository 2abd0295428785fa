package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;

import java.time.Duration;

/**
 * Runs inside {@link WithoutMicrometerTest}'s class loader, which has no Micrometer: a whole client
 * life (builder, acquire with renewal, release, close) must work there.
 */
public final class NoMicrometerProbe {

    private NoMicrometerProbe() {
    }

    /** Returns what the client did, or throws whatever went wrong. */
    public static String run(String uri) throws Exception {
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry");
            throw new AssertionError("Micrometer is on this class loader's path: the probe proves nothing");
        } catch (ClassNotFoundException expected) {
            // As in an application without Micrometer.
        }
        try (RedisLockClient client = RedisLocks.builder().uri(uri).operationTimeout(Duration.ofSeconds(2)).connect()) {
            Lease lease = client.lock("no-micrometer", LockOptions.watchdog(Duration.ofSeconds(2))).acquire(Duration.ofSeconds(2));
            Thread.sleep(2_500);
            lease.ensureValid();
            return "token " + lease.token() + ", renewed, " + lease.release();
        }
    }
}
