package dev.leasehold.examples;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.zookeeper.ZooKeeperLocks;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/operations.md: meters on a Micrometer registry. */
class OperationsExamplesTest {

    @Test
    void everyBuilderTakesAMeterRegistry() {
        MeterRegistry registry = new SimpleMeterRegistry();
        String redisUri = Servers.redisUri();
        String connectString = Servers.zookeeper();
        // tag::meters[]
        LockClient locks = RedisLocks.builder().uri(redisUri).meterRegistry(registry).connect();
        LockClient zk = ZooKeeperLocks.builder().connectString(connectString).meterRegistry(registry).build();
        // end::meters[]
        try (locks; zk; Lease lease = locks.lock("metered").acquire(Duration.ZERO)) {
            assertThat(lease.isValid()).isTrue();
            assertThat(registry.get("leasehold.leases.active").gauge().value()).isEqualTo(1.0);
        }
        assertThat(registry.get("leasehold.acquire.wait").tag("outcome", "acquired").timer().count()).isEqualTo(1);
    }
}
