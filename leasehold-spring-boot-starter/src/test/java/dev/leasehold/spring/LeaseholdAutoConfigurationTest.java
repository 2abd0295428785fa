package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockClientClosedException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.launcher.TlsMaterial;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.testkit.junit.TestServer;
import dev.leasehold.testkit.meters.MeterReadings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The auto-configured client on a real server, for each way of naming it, and backing off for the application's own. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseholdAutoConfigurationTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class));

    @Test
    void springDataRedisHostPortAndDatabaseNameTheServer() {
        runner.withPropertyValues("spring.data.redis.host=" + server.get().host(), "spring.data.redis.port=" + server.get().port(),
                "spring.data.redis.database=3").run(context -> {
            assertThat(context).hasSingleBean(LockClient.class);
            RedisLockClient locks = context.getBean(RedisLockClient.class);
            assertThat(locks.describe()).isEqualTo("redis://" + server.get().host() + ":" + server.get().port() + "/3");
            try (Lease lease = locks.lock("auto:host").acquire(Duration.ZERO)) {
                assertThat((String) server.get().command("INFO", "keyspace")).contains("db3:keys=");
                assertThat(lease.token()).isPositive();
            }
        });
    }

    @Test
    void springDataRedisUrlOverridesHostAndPort() {
        runner.withPropertyValues("spring.data.redis.url=" + server.get().uri() + "/2", "spring.data.redis.host=nowhere.invalid",
                "spring.data.redis.port=1").run(context -> {
            RedisLockClient locks = context.getBean(RedisLockClient.class);
            assertThat(locks.describe()).isEqualTo(server.get().uri() + "/2");
            try (Lease lease = locks.lock("auto:url").acquire(Duration.ZERO)) {
                assertThat((String) server.get().command("INFO", "keyspace")).contains("db2:keys=");
                assertThat(lease.lockName()).isEqualTo("auto:url");
            }
        });
    }

    @Test
    void leaseholdRedisUriWinsOverSpringDataRedisAndTheOtherPropertiesApply() {
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri(), "spring.data.redis.host=nowhere.invalid",
                "leasehold.redis.key-prefix=app1:", "leasehold.redis.operation-timeout=2s",
                "leasehold.redis.max-recheck=200ms", "leasehold.redis.fence-retention=1m").run(context -> {
            RedisLockClient locks = context.getBean(RedisLockClient.class);
            try (Lease lease = locks.lock("order:1").acquire(Duration.ZERO)) {
                assertThat(lease.lockName()).isEqualTo("app1:order:1");
                assertThat((Long) server.get().command("EXISTS", "app1:order:1")).isEqualTo(1L);
                long fenceTtl = (Long) server.get().command("PTTL", "{app1:order:1}:fence");
                assertThat(fenceTtl).isBetween(1L, 60_000L);
            }
        });
    }

    @Test
    void anAclUserAndPasswordFromSpringDataRedis() {
        try (RedisServer acl = RedisServer.builder().aclUser("app", "s3cret-pw").start()) {
            runner.withPropertyValues("spring.data.redis.host=" + acl.host(), "spring.data.redis.port=" + acl.port(),
                    "spring.data.redis.username=app", "spring.data.redis.password=s3cret-pw").run(context -> {
                try (Lease lease = context.getBean(LockClient.class).lock("auto:acl").acquire(Duration.ZERO)) {
                    assertThat((Long) acl.command("EXISTS", "auto:acl")).isEqualTo(1L);
                    assertThat(lease.isValid()).isTrue();
                }
            });
        }
    }

    @Test
    void tlsFromSslEnabledOrARedissUriWithAPrivateCa(@TempDir Path dir) {
        TlsMaterial tls = TlsMaterial.generate(dir);
        try (RedisServer secure = RedisServer.builder().tls(tls).start()) {
            runner.withPropertyValues("spring.data.redis.host=" + secure.host(), "spring.data.redis.port=" + secure.port(),
                    "spring.data.redis.ssl.enabled=true", "leasehold.redis.trusted-certificate=" + tls.caCert())
                    .run(context -> {
                        RedisLockClient locks = context.getBean(RedisLockClient.class);
                        assertThat(locks.describe()).startsWith("rediss://");
                        try (Lease lease = locks.lock("auto:tls").acquire(Duration.ZERO)) {
                            assertThat((Long) secure.command("EXISTS", "auto:tls")).isEqualTo(1L);
                            assertThat(lease.isValid()).isTrue();
                        }
                    });
            runner.withPropertyValues("leasehold.redis.uri=" + secure.uri(),
                    "leasehold.redis.trusted-certificate=" + tls.caCert()).run(context -> {
                try (Lease lease = context.getBean(LockClient.class).lock("auto:tls-uri").acquire(Duration.ZERO)) {
                    assertThat(lease.isValid()).isTrue();
                }
            });
        }
    }

    @Test
    void theApplicationsOwnLockClientIsKeptAndNoServerPropertyIsNeeded() {
        runner.withUserConfiguration(OwnClient.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
            assertThat(context.getBean(LockClient.class)).isSameAs(context.getBean("ownLockClient"));
            try (Lease lease = context.getBean(LockClient.class).lock("x").acquire(Duration.ZERO)) {
                assertThat(lease.lockName()).isEqualTo("own:x");
            }
        });
    }

    @Test
    void aCustomizerAdjustsTheBuilderAfterTheProperties() {
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri(), "leasehold.redis.key-prefix=from-property:")
                .withBean(RedisLocksBuilderCustomizer.class, () -> builder -> builder.keyPrefix("customized:"))
                .run(context -> {
                    try (Lease lease = context.getBean(LockClient.class).lock("y").acquire(Duration.ZERO)) {
                        assertThat(lease.lockName()).isEqualTo("customized:y");
                    }
                });
    }

    @Test
    void theClientIsClosedWithTheContextAndItsLeasesFreed() {
        RedisLockClient[] seen = new RedisLockClient[1];
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri()).run(context -> {
            seen[0] = context.getBean(RedisLockClient.class);
            seen[0].lock("auto:closed").acquire(Duration.ZERO);
            assertThat((Long) server.get().command("EXISTS", "auto:closed")).isEqualTo(1L);
        });
        assertThat((Long) server.get().command("EXISTS", "auto:closed")).as("close() deleted the held lease's key").isZero();
        assertThatThrownBy(() -> seen[0].lock("auto:closed").acquire(Duration.ZERO))
                .isInstanceOf(LockClientClosedException.class);
    }

    @Test
    void theMetersGoToTheApplicationsRegistry() {
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri())
                .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    MeterReadings meters = new MeterReadings(registry);
                    assertThat(registry.find("leasehold.acquire.wait").timers()).isEmpty();
                    try (Lease lease = context.getBean(LockClient.class).lock("auto:meters").acquire(Duration.ZERO)) {
                        assertThat(meters.active()).isEqualTo(1.0);
                    }
                    assertThat(meters.acquisitions("lock", "acquired")).isEqualTo(1);
                    assertThat(meters.leasesEnded()).isEqualTo(1);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean(destroyMethod = "close")
        LockClient ownLockClient() {
            return RedisLocks.builder().uri(server.get().uri()).keyPrefix("own:").connect();
        }
    }
}
