package dev.leasehold.zookeeper;

import dev.leasehold.Lease;
import dev.leasehold.LockInfo;
import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.testkit.contract.InspectorContract;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The inspector contract on ZooKeeper, and what only ZooKeeper reports: no ttl per holder, the fence of a free name. */
class ZooKeeperInspectorTest extends InspectorContract {

    @Override
    protected EngineLockClient connect() {
        return TestClients.connect(Ensemble.shared());
    }

    @Test
    void aHolderHasNoTtlAndAFreeNameStillReportsItsFence() {
        EngineLockClient client = client();
        String name = name("fence");
        assertThat(client.inspect(name)).as("never used: ZooKeeper knows nothing of it")
                .isEqualTo(LockInfo.free(name, OptionalLong.empty()));
        long token;
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            token = lease.token();
            assertThat(client.inspect(name).remaining()).as("a node lives as long as its session").isEmpty();
        }
        LockInfo free = client.inspect(name);
        assertThat(free.isHeld()).isFalse();
        assertThat(free.lastToken().orElseThrow()).as("the fence: at least every token issued").isGreaterThanOrEqualTo(token);
        try (Lease next = client.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(next.token()).as("and below every later one").isGreaterThan(free.lastToken().orElseThrow());
        }
    }
}
