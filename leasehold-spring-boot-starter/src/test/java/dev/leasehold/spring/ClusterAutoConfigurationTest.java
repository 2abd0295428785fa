package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configured client on a three-master Redis Cluster named by {@code spring.data.redis.cluster.nodes}.
 * The last test puts a password on every node, so it runs last.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterAutoConfigurationTest {

    private static final String PASSWORD = "p@ss: w/rd%";
    @RegisterExtension
    static final TestServer<RedisClusterGroup> cluster = TestServer.perClass(() -> RedisClusterGroup.start(3, 0));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class, LeaseholdHealthAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.timeout=2s", "spring.data.redis.cluster.nodes="
                    + node(cluster.get().nodes().get(0)) + "," + node(cluster.get().nodes().get(1)));

    @Test
    @Order(1)
    void locksOnTheMasterOfEachLocksSlotAndReportsHealth() {
        runner.run(context -> {
            RedisLockClient locks = context.getBean(RedisLockClient.class);
            assertThat(locks.describe()).contains(node(cluster.get().nodes().get(0)));
            for (String name : new String[] {"auto:cluster:1", "auto:cluster:2", "auto:cluster:3"}) {
                RedisServer master = cluster.get().masterOf(cluster.get().slotOf(name));
                try (Lease lease = locks.lock(name).acquire(Duration.ZERO)) {
                    assertThat((Long) master.command("EXISTS", name)).as(name).isEqualTo(1L);
                    assertThat(lease.token()).isPositive();
                }
                assertThat((Long) master.command("EXISTS", name)).as(name + " released").isZero();
            }
            assertThat(context.getBean(LeaseholdHealthIndicator.class).health(true).getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    @Order(1)
    void leaseholdRedisUriTakesTheOneStringClusterFormAndWinsOverSpringsNodes() {
        String uri = "redis-cluster://" + node(cluster.get().nodes().get(2)) + "," + node(cluster.get().nodes().get(1));
        runner.withPropertyValues("leasehold.redis.uri=" + uri).run(context -> {
            RedisLockClient locks = context.getBean(RedisLockClient.class);
            assertThat(locks.describe()).startsWith("redis-cluster://" + node(cluster.get().nodes().get(2)));
            try (Lease lease = locks.lock("auto:cluster:uri").acquire(Duration.ZERO)) {
                RedisServer master = cluster.get().masterOf(cluster.get().slotOf("auto:cluster:uri"));
                assertThat((Long) master.command("EXISTS", "auto:cluster:uri")).isEqualTo(1L);
                assertThat(lease.token()).isPositive();
            }
        });
    }

    @Test
    @Order(2)
    void theDataPasswordReachesEveryNodeEvenWithCharactersAUriReserves() {
        for (RedisServer node : cluster.get().nodes()) {
            node.command("CONFIG", "SET", "requirepass", PASSWORD);
        }
        runner.withPropertyValues("spring.data.redis.password=" + PASSWORD).run(context -> {
            RedisLockClient locks = context.getBean(RedisLockClient.class);
            try (Lease lease = locks.lock("auto:cluster:secret").acquire(Duration.ZERO)) {
                assertThat(locks.inspect("auto:cluster:secret").isHeld()).isTrue();
                assertThat(lease.isValid()).isTrue();
            }
            assertThat(locks.inspect("auto:cluster:secret").isHeld()).isFalse();
        });
        runner.withPropertyValues("spring.data.redis.password=wrong-password").run(context -> {
            assertThat(context.getStartupFailure()).isNotNull();
            StringWriter text = new StringWriter();
            context.getStartupFailure().printStackTrace(new PrintWriter(text));
            assertThat(text.toString()).contains("spring.data.redis.cluster.nodes: Leasehold could not connect")
                    .doesNotContain("wrong-password");
        });
    }

    private static String node(RedisServer server) {
        return server.host() + ":" + server.port();
    }
}
