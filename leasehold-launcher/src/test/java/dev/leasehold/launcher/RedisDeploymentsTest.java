package dev.leasehold.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class RedisDeploymentsTest {

    /** Two failovers back to back (a Sentinel waits out the first before the second): ~25 s, so in the faults run. */
    @Test
    @Tag("faults")
    void sentinelsPromoteAReplicaWhenTheMasterDies() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(2, "s3cret")) {
            RedisServer master = group.master();
            assertThat(master).isSameAs(group.servers().get(0));
            assertThat(group.uri()).startsWith("redis-sentinel://s3cret@127.0.0.1:").endsWith("#mymaster");
            master.command("SET", "k", "v");
            master.command("WAIT", "2", "2000");
            master.kill();
            RedisServer promoted = group.awaitNewMaster(master);
            assertThat(promoted).isNotSameAs(master);
            assertThat(promoted.command("GET", "k")).isEqualTo("v");
            RedisServer again = group.failover();
            assertThat(again).isNotSameAs(promoted).isNotSameAs(master);
            assertThat(again.command("GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void clusterServesEverySlotFailsOverAndMovesASlot() {
        try (RedisClusterGroup cluster = RedisClusterGroup.start(3, 1)) {
            assertThat(cluster.nodes()).hasSize(6);
            int slot = cluster.slotOf("{order:1}");
            RedisServer owner = cluster.masterOf(slot);
            owner.command("SET", "{order:1}", "x");
            RedisServer target = cluster.nodes().stream().limit(3).filter(n -> n != owner).findFirst().orElseThrow();
            boolean[] ran = {false};
            cluster.moveSlot(slot, target, () -> ran[0] = true);
            assertThat(ran[0]).isTrue();
            assertThat(cluster.masterOf(slot)).isSameAs(target);
            assertThat(target.command("GET", "{order:1}")).isEqualTo("x");
            List<RedisServer> replicas = cluster.replicasOf(target);
            assertThat(replicas).hasSize(1);
            target.command("WAIT", "1", "2000");
            cluster.failover(replicas.get(0));
            assertThat(cluster.masterOf(slot)).isSameAs(replicas.get(0));
            assertThat(replicas.get(0).command("GET", "{order:1}")).isEqualTo("x");
        }
    }
}
