package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockClientClosedException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.launcher.FreePorts;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code leasehold.redis.connect-on-startup=false}: the application starts while Redis is down, the
 * health indicator is DOWN until the server answers, a lock used before that fails with the typed
 * error, and the first use after it connects; the server is a real one, started after the context.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LazyConnectTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class, LeaseholdHealthAutoConfiguration.class))
            .withBean(Reports.class);

    @Test
    void theApplicationStartsWhileRedisIsDownAndConnectsOnceItAnswers() {
        int port = FreePorts.find();
        runner.withPropertyValues("leasehold.redis.uri=redis://127.0.0.1:" + port, "leasehold.redis.connect-on-startup=false",
                "leasehold.redis.operation-timeout=500ms").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockClient.class).doesNotHaveBean(RedisLockClient.class);
            LazyRedisLockClient client = context.getBean(LazyRedisLockClient.class);
            assertThat(client.isConnected()).isFalse();
            assertThat(client.describe()).contains("leasehold.redis.uri").contains("not connected yet");
            HealthIndicator health = context.getBean("leaseholdHealthIndicator", HealthIndicator.class);
            Health down = health.health(true);
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsKey("error").containsKey("server");

            Reports reports = context.getBean(Reports.class);
            assertThatThrownBy(() -> reports.nightly()).isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + port);
            assertThat(reports.runs).as("the method did not run without its lock").isZero();

            try (RedisServer server = RedisServer.builder().port(port).start()) {
                assertThat(reports.nightly()).as("the first use after the server came up connected").isEqualTo("nightly");
                assertThat(client.isConnected()).isTrue();
                assertThat(client.describe()).isEqualTo(server.uri());
                assertThat(client.connected().describe()).as("the connected client, for inspect and list").isEqualTo(server.uri());
                assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
            }
        });
    }

    @Test
    void theHealthCheckConnectsTooAndTheSettingsAreStillCheckedAtStartup() {
        try (RedisServer server = RedisServer.builder().start()) {
            runner.withPropertyValues("leasehold.redis.uri=" + server.uri(), "leasehold.redis.connect-on-startup=false")
                    .run(context -> {
                        LazyRedisLockClient client = context.getBean(LazyRedisLockClient.class);
                        assertThat(client.isConnected()).as("nothing connected at startup").isFalse();
                        HealthIndicator health = context.getBean("leaseholdHealthIndicator", HealthIndicator.class);
                        assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
                        assertThat(client.isConnected()).isTrue();
                        try (Lease lease = client.lock("report").acquire()) {
                            assertThat(lease.token()).isPositive();
                        }
                    });
        }
        runner.withPropertyValues("leasehold.redis.uri=localhost:6379", "leasehold.redis.connect-on-startup=false")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining(LeaseholdConfigurationException.class.getName() + ": leasehold.redis.uri: "));
    }

    /** An Error from the connect (a Netty class that failed to initialise) fails that call only; the next one tries again. */
    @Test
    void aConnectThatThrowsAnErrorDoesNotHoldTheNextCaller() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        LazyRedisLockClient client = new LazyRedisLockClient(() -> {
            if (attempts.incrementAndGet() == 1) {
                throw new NoClassDefFoundError("io/netty/channel/epoll/Epoll");
            }
            throw new LockUnavailableException("Redis at 127.0.0.1:1 is unreachable", List.of());
        }, "leasehold.redis.uri");
        assertThatThrownBy(() -> client.lock("report")).isInstanceOf(NoClassDefFoundError.class);

        CompletableFuture<Throwable> next = CompletableFuture.supplyAsync(() -> {
            try {
                client.lock("report");
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        assertThat(next.get(5, TimeUnit.SECONDS)).as("a new attempt, not a wait for the failed one")
                .isInstanceOf(LockUnavailableException.class);
        assertThat(attempts).hasValue(2);
    }

    /**
     * A close while a connect is under way: the callers waiting for it were held until it ended and
     * then got its client, already closed, instead of {@link LockClientClosedException}.
     */
    @Test
    void aCloseDuringAConnectEndsTheWaitOfEveryCallerWithTheTypedError() throws Exception {
        CountDownLatch connecting = new CountDownLatch(1);
        CountDownLatch serverUp = new CountDownLatch(1);
        AtomicReference<RedisLockClient> made = new AtomicReference<>();
        try (RedisServer server = RedisServer.builder().start()) {
            LazyRedisLockClient client = new LazyRedisLockClient(() -> {
                connecting.countDown();
                await(serverUp); // a server slow to answer
                made.set(RedisLocks.builder().uri(server.uri()).connect());
                return made.get();
            }, "leasehold.redis.uri");
            try {
                Call first = Call.start(() -> client.lock("report"));
                assertThat(connecting.await(5, TimeUnit.SECONDS)).isTrue();
                Call waiter = Call.start(() -> client.lock("report"));
                while (waiter.thread().getState() != Thread.State.WAITING) { // in the attempt's join, not yet past it
                    Thread.sleep(10);
                }

                client.close();

                assertThat(waiter.thrown().get(5, TimeUnit.SECONDS)).as("the waiter, with the connect still under way")
                        .isInstanceOf(LockClientClosedException.class);
                assertThat(Call.start(client::connected).thrown().get(5, TimeUnit.SECONDS)).as("a caller after the close")
                        .isInstanceOf(LockClientClosedException.class);
                serverUp.countDown();
                assertThat(first.thrown().get(10, TimeUnit.SECONDS)).as("the caller that connected")
                        .isInstanceOf(LockClientClosedException.class);
                assertThatThrownBy(() -> made.get().inspect("report")).as("the client it made is closed")
                        .isInstanceOf(LockClientClosedException.class);
            } finally {
                serverUp.countDown();
                client.close();
            }
        }
    }

    /** A call made in a thread of its own, and what it throws (null if it returns). */
    private record Call(Thread thread, CompletableFuture<Throwable> thrown) {
        static Call start(Runnable call) {
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    call.run();
                    thrown.complete(null);
                } catch (RuntimeException e) {
                    thrown.complete(e);
                }
            }, "lazy-connect-caller");
            thread.setDaemon(true);
            thread.start();
            return new Call(thread, thrown);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static class Reports {
        volatile int runs;

        @Locked(name = "'nightly'", waitFor = "1s")
        public String nightly() {
            runs++;
            return Lease.current().lockName();
        }
    }
}
