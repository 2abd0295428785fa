package dev.leasehold.compat;

import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A lock, a waiter and a semaphore, with whatever Lettuce and Netty Spring Boot's BOM chose. */
class LockUnderSpringBootTest {

    @Test
    void acquiresHandsOverAndReleases() throws Exception {
        System.out.println("Lettuce " + RedisClient.class.getPackage().getImplementationVersion()
                + ", Netty " + io.netty.util.Version.identify().values().iterator().next().artifactVersion());
        try (RedisServer server = RedisServer.builder().start();
             RedisLockClient locks = RedisLocks.connect(server.uri())) {
            Lease first = locks.lock("compat:order").acquire(Duration.ofSeconds(5));
            var waiter = locks.lock("compat:order").acquireAsync(Duration.ofSeconds(5));
            assertEquals(ReleaseStatus.RELEASED, first.release());
            try (Lease second = waiter.get()) {
                assertTrue(second.token() > first.token());
            }
            DistributedSemaphore permits = locks.semaphore("compat:exports", 2);
            try (Lease permit = permits.acquire(Duration.ofSeconds(5))) {
                assertEquals(1, permits.available());
            }
        }
    }
}
