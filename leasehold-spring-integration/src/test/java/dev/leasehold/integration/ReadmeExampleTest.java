package dev.leasehold.integration;

import dev.leasehold.FenceGuard;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's "Spring Integration" example, compiled and run as written there. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReadmeExampleTest {

    @Test
    void theReadmeExampleRuns() throws Exception {
        Map<Long, String> orders = new HashMap<>();
        FenceGuard guard = new InMemoryFenceGuard();
        try (RedisServer server = RedisServer.builder().start();
             LockClient lockClient = RedisLocks.connect(server.uri())) {
            // README: begin
            LeaseholdLockRegistry registry = new LeaseholdLockRegistry(lockClient);   // any LockClient

            // Spring Integration's own components take it as they are:
            LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, new DefaultCandidate());

            // The lock belongs to the thread that locked it, its lease (and fencing token) too:
            registry.executeLocked("order:42", () -> {
                long token = registry.currentLease("order:42").orElseThrow().token();
                guard.admit("order:42", token, () -> orders.put(42L, "paid"));   // refuses a stale token
            });
            // README: end
            assertThat(orders).containsEntry(42L, "paid");
            assertThat(guard.highestAdmitted("order:42")).isPositive();
            assertThat(initiator.isRunning()).isFalse();
        }
    }
}
