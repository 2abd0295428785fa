package dev.leasehold.spring;

import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @Locked} method that finished keeps its result when the server dies (or freezes) before
 * the release: the release's failure is no failure of the work, which a retrying caller would
 * otherwise repeat; the lock expires by its ttl.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedReleaseFailureTest {

    private ApplicationContextRunner on(RedisServer server) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
                .withBean(RedisServer.class, () -> server)
                .withBean(Jobs.class)
                .withPropertyValues("leasehold.redis.uri=" + server.uri(), "leasehold.redis.operation-timeout=1s");
    }

    /** Failed before: the call threw "the release of 'job:killed' failed" over the method's result. */
    @Test
    void theResultOfAMethodWhoseServerDiedBeforeTheReleaseIsReturned() {
        try (RedisServer server = RedisServer.builder().start()) {
            on(server).run(context -> assertThat(context.getBean(Jobs.class).killing()).isEqualTo("done"));
        }
    }

    @Test
    void theResultOfAMethodWhoseReleaseTimedOutOnAFrozenServerIsReturned() {
        try (RedisServer server = RedisServer.builder().start()) {
            on(server).run(context -> {
                try {
                    assertThat(context.getBean(Jobs.class).freezing()).isEqualTo("done");
                } finally {
                    server.resume();
                }
                assertThat((Long) server.command("PTTL", "job:frozen")).as("left to expire by its ttl").isPositive();
            });
        }
    }

    /** The application's jobs, each of which does its work and then loses its server. */
    public static class Jobs {

        private final RedisServer server;

        public Jobs(RedisServer server) {
            this.server = server;
        }

        @Locked(name = "'job:killed'")
        public String killing() {
            server.kill();
            return "done";
        }

        @Locked(name = "'job:frozen'", ttl = "20s")
        public String freezing() {
            server.pause();
            return "done";
        }
    }
}
