package dev.leasehold.examples;

import dev.leasehold.FenceGuard;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.integration.LeaseholdLockRegistry;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.shedlock.LeaseholdLockProvider;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/spring.md's Spring Integration and ShedLock examples, without a Spring context (the Spring
 * Integration one was leasehold-spring-integration's ReadmeExampleTest).
 */
class IntegrationsExamplesTest {

    private static LockClient lockClient;
    private final FenceGuard guard = new InMemoryFenceGuard();
    private final Map<Long, String> orders = new ConcurrentHashMap<>();

    @BeforeAll
    static void connect() {
        lockClient = RedisLocks.connect(Servers.redisUri());
    }

    @AfterAll
    static void close() {
        lockClient.close();
    }

    @Test
    void springIntegrationsRegistry() throws Exception {
        // tag::lock-registry[]
        LeaseholdLockRegistry registry = new LeaseholdLockRegistry(lockClient);   // any LockClient

        // Spring Integration's own components take it as they are:
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, new DefaultCandidate());

        // The lock belongs to the thread that locked it, its lease (and fencing token) too:
        registry.executeLocked("order:42", () -> {
            long token = registry.currentLease("order:42").orElseThrow().token();
            guard.admit("order:42", token, () -> orders.put(42L, "paid"));   // refuses a stale token
        });
        // end::lock-registry[]
        assertThat(initiator.isRunning()).isFalse();
        assertThat(orders).containsEntry(42L, "paid");
        assertThat(guard.highestAdmitted("order:42")).isPositive();
    }

    @Test
    void shedLocksExecutor() {
        LockClient locks = lockClient;
        String name = "shedlock-job";
        AtomicLong seen = new AtomicLong();
        // tag::shedlock-executor[]
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(new LeaseholdLockProvider(locks));
        executor.executeWithLock((Runnable) () -> {
            Lease lease = LeaseholdLockProvider.currentLease().orElseThrow();   // this job's lease, on its thread
            guard.admit(name, lease, () -> seen.getAndSet(lease.token()));      // lease.lost() completes if it runs out
            LockExtender.extendActiveLock(Duration.ofSeconds(10), Duration.ZERO); // same lease, same token
        }, new LockConfiguration(ClockProvider.now(), name, Duration.ofMinutes(5), Duration.ZERO));
        // end::shedlock-executor[]
        assertThat(seen.get()).isPositive();
    }
}
