package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configured client on a master behind three Sentinels, named by
 * {@code spring.data.redis.sentinel.*}: the data nodes require a password, and the Sentinels their
 * own ACL user, so a lock is only taken when both pairs of credentials reach the right servers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SentinelAutoConfigurationTest {

    private static final String DATA_PASSWORD = "data-secret";
    private static final String SENTINEL_PASSWORD = "watch: secret@";
    /** A long down-after: nothing here should make the Sentinels fail the master over. */
    @RegisterExtension
    static final TestServer<RedisSentinelGroup> group =
            TestServer.perClass(() -> RedisSentinelGroup.start(1, DATA_PASSWORD, Duration.ofSeconds(30)));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class, LeaseholdHealthAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.sentinel.master=" + RedisSentinelGroup.MASTER_NAME,
                    "spring.data.redis.sentinel.nodes=" + group.get().sentinels().stream()
                            .map(s -> s.host() + ":" + s.port()).collect(Collectors.joining(",")),
                    "spring.data.redis.password=" + DATA_PASSWORD, "spring.data.redis.timeout=2s");

    @BeforeAll
    static void letTheSentinelsTakeOnlyTheWatcher() {
        for (RedisServer sentinel : group.get().sentinels()) {
            // Sentinels only take clients that log in as "watcher" from here on.
            sentinel.command("ACL", "SETUSER", "watcher", "on", ">" + SENTINEL_PASSWORD, "+@all", "~*", "&*");
            sentinel.command("ACL", "SETUSER", "default", "off");
        }
    }

    @Test
    void locksOnTheMasterTheSentinelsNameAndReportsHealth() {
        runner.withPropertyValues("spring.data.redis.sentinel.username=watcher",
                "spring.data.redis.sentinel.password=" + SENTINEL_PASSWORD).run(context -> {
            RedisLockClient locks = context.getBean(RedisLockClient.class);
            assertThat(locks.describe()).startsWith("redis-sentinel://").endsWith("#" + RedisSentinelGroup.MASTER_NAME)
                    .doesNotContain(DATA_PASSWORD).doesNotContain("watch");
            RedisServer master = group.get().servers().get(0);
            try (Lease lease = locks.lock("auto:sentinel").acquire(Duration.ZERO)) {
                assertThat((Long) master.command("EXISTS", "auto:sentinel")).isEqualTo(1L);
                assertThat(lease.token()).isPositive();
            }
            assertThat((Long) master.command("EXISTS", "auto:sentinel")).as("released").isZero();
            assertThat(context.getBean(LeaseholdHealthIndicator.class).health(true).getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void theSentinelsCredentialsAreTheirOwnAndNeverShown() {
        runner.run(context -> assertThat(startupFailure(context.getStartupFailure()))
                .contains("spring.data.redis.sentinel.master: Leasehold could not connect").doesNotContain(DATA_PASSWORD));
        runner.withPropertyValues("spring.data.redis.sentinel.username=watcher",
                "spring.data.redis.sentinel.password=wrong-watch-secret").run(context ->
                assertThat(startupFailure(context.getStartupFailure()))
                        .contains("spring.data.redis.sentinel.master: Leasehold could not connect")
                        .doesNotContain("wrong-watch-secret").doesNotContain(DATA_PASSWORD));
        runner.withPropertyValues("spring.data.redis.sentinel.username=watcher",
                "spring.data.redis.sentinel.password=" + SENTINEL_PASSWORD, "spring.data.redis.password=wrong-data")
                .run(context -> assertThat(startupFailure(context.getStartupFailure()))
                        .contains("spring.data.redis.sentinel.master: Leasehold could not connect")
                        .doesNotContain("wrong-data").doesNotContain(SENTINEL_PASSWORD));
    }

    private static String startupFailure(Throwable failure) {
        assertThat(failure).as("the startup failed").isNotNull();
        StringWriter text = new StringWriter();
        failure.printStackTrace(new PrintWriter(text));
        return text.toString();
    }
}
