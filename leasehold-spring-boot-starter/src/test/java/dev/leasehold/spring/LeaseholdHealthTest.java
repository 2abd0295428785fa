package dev.leasehold.spring;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The health indicator pings the real server: UP while it answers, DOWN when it does not. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseholdHealthTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(LeaseholdAutoConfiguration.class, LeaseholdHealthAutoConfiguration.class));

    @Test
    void upWhileTheServerAnswersDownWhenItIsPausedOrGone() {
        try (RedisServer server = RedisServer.builder().start()) {
            runner.withPropertyValues("leasehold.redis.uri=" + server.uri(), "leasehold.redis.operation-timeout=300ms")
                    .run(context -> {
                        HealthIndicator indicator = context.getBean("leaseholdHealthIndicator", HealthIndicator.class);
                        Health up = indicator.health(true);
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(up.getDetails()).containsEntry("server", server.uri()).containsKey("roundTrip")
                                .containsEntry("heldLeases", 0);
                        assertThat((Long) server.command("DBSIZE")).as("the probe writes nothing").isZero();

                        server.pause();
                        try {
                            Health frozen = indicator.health(true);
                            assertThat(frozen.getStatus()).isEqualTo(Status.DOWN);
                            assertThat(frozen.getDetails()).containsEntry("server", server.uri()).containsKey("error");
                        } finally {
                            server.resume();
                        }
                        assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);

                        server.kill();
                        assertThat(indicator.health(true).getStatus()).isEqualTo(Status.DOWN);
                    });
        }
    }

    @Test
    void absentWithoutActuatorWhenDisabledOrWithoutARedisLockClient() {
        try (RedisServer server = RedisServer.builder().start()) {
            ApplicationContextRunner live = runner.withPropertyValues("leasehold.redis.uri=" + server.uri());
            live.run(context -> assertThat(context).hasBean("leaseholdHealthIndicator"));
            live.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                    .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("leaseholdHealthIndicator"));
            live.withPropertyValues("management.health.leasehold.enabled=false")
                    .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("leaseholdHealthIndicator"));
            runner.withBean("ownLockClient", LockClient.class, () -> new ForeignLockClient(RedisLocks.connect(server.uri())))
                    .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("leaseholdHealthIndicator"));
        }
    }
}
