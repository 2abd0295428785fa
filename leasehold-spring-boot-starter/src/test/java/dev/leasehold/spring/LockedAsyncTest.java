package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @Async @Locked} methods on a real server: the lock is held around the body on the
 * executor's thread (although Spring's async post-processor, registered by the application's
 * configuration before the starter's, proxied the bean first), so calls made at once run their
 * bodies one at a time, each with its lease as {@link Lease#current()}; a returned future that is
 * still pending keeps the lock until it completes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedAsyncTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    private ApplicationContextRunner runner(Class<?> services) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
                .withUserConfiguration(AsyncConfiguration.class)
                .withBean(services)
                .withPropertyValues("leasehold.redis.uri=" + server.get().uri(), "leasehold.redis.max-recheck=100ms");
    }

    /** Failed before: four bodies ran at once, and Lease.current() threw in each. */
    @Test
    void fourCallsOfAVoidAsyncMethodRunTheirBodiesOneAtATimeUnderTheLock() {
        runner(AsyncServices.class).run(context -> {
            AsyncServices services = context.getBean(AsyncServices.class);
            CountDownLatch done = new CountDownLatch(4);
            for (int i = 0; i < 4; i++) {
                services.work(done);
            }
            assertThat(done.await(30, TimeUnit.SECONDS)).as("all four bodies ran").isTrue();
            assertThat(services.maxInside()).as("bodies inside the lock at once").isOne();
            assertThat(services.failures()).isEmpty();
            assertThat(services.tokens()).hasSize(4);
            assertThat(services.threads()).as("the bodies ran on the executor, not the caller's thread")
                    .doesNotContain(Thread.currentThread().getName());
        });
    }

    @Test
    void aCompletableFutureAsyncMethodRunsUnderTheLockOnTheExecutor() throws Exception {
        runner(FutureServices.class).run(context -> {
            FutureServices services = context.getBean(FutureServices.class);
            List<CompletableFuture<Long>> tokens = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                tokens.add(services.token());
            }
            for (CompletableFuture<Long> token : tokens) {
                assertThat(token.get(30, TimeUnit.SECONDS)).isPositive();
            }
            assertThat(services.failures()).isEmpty();
            assertThat(services.maxInside()).isOne();
            assertThat(tokens.stream().map(CompletableFuture::join).distinct()).hasSize(4);
        });
    }

    @Test
    void aPendingReturnedFutureKeepsTheLockUntilItCompletes() {
        runner(FutureServices.class).run(context -> {
            FutureServices services = context.getBean(FutureServices.class);
            CompletableFuture<String> gate = new CompletableFuture<>();
            CompletableFuture<String> result = services.pending(gate);
            awaitKey("async:pending", 1L);
            Thread.sleep(300);
            assertThat(result).isNotDone();
            assertThat((Long) server.get().command("EXISTS", "async:pending")).as("held while the work is pending").isOne();
            gate.complete("finished");
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("finished");
            awaitKey("async:pending", 0L);
        });
    }

    @Test
    void aSkippedAsyncCallCompletesItsFutureWithNullWithoutRunning() throws Exception {
        runner(FutureServices.class).run(context -> {
            FutureServices services = context.getBean(FutureServices.class);
            try (RedisLockClient other = RedisLocks.connect(server.get().uri());
                 Lease held = other.lock("async:skip").acquire(Duration.ZERO)) {
                assertThat(services.unlessLocked().get(10, TimeUnit.SECONDS)).as("skipped").isNull();
                assertThat(services.tokens()).as("the body did not run").isEmpty();
            }
            assertThat(services.unlessLocked().get(10, TimeUnit.SECONDS)).isPositive();
            assertThat(services.failures()).isEmpty();
        });
    }

    private static void awaitKey(String key, long exists) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!server.get().command("EXISTS", key).equals(exists)) {
            assertThat(System.nanoTime() - deadline).as("EXISTS %s became %d", key, exists).isNegative();
            Thread.sleep(10);
        }
    }

    /** Spring's default executor then starts a thread per task, so the calls really do run at once. */
    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncConfiguration {
    }

    /** What the bodies saw: how many ran at once, their tokens and threads, and what failed in them. */
    abstract static class Bodies {

        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger maxInside = new AtomicInteger();
        private final Set<Long> tokens = ConcurrentHashMap.newKeySet();
        private final Set<String> threads = ConcurrentHashMap.newKeySet();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();

        // Read through these: a class proxy's own fields are not the bean's.
        public int maxInside() {
            return maxInside.get();
        }

        public Set<Long> tokens() {
            return tokens;
        }

        public Set<String> threads() {
            return threads;
        }

        public List<Throwable> failures() {
            return failures;
        }

        long body() {
            int now = inside.incrementAndGet();
            maxInside.accumulateAndGet(now, Math::max);
            threads.add(Thread.currentThread().getName());
            try {
                Thread.sleep(100);
                long token = Lease.current().token();
                tokens.add(token);
                return token;
            } catch (Throwable failed) {
                failures.add(failed);
                return -1;
            } finally {
                inside.decrementAndGet();
            }
        }
    }

    public static class AsyncServices extends Bodies {

        @Async
        @Locked(name = "'async:void'", waitFor = "20s")
        public void work(CountDownLatch done) {
            try {
                body();
            } finally {
                done.countDown();
            }
        }
    }

    public static class FutureServices extends Bodies {

        @Async
        @Locked(name = "'async:future'", waitFor = "20s")
        public CompletableFuture<Long> token() {
            return CompletableFuture.completedFuture(body());
        }

        @Async
        @Locked(name = "'async:skip'", waitFor = "0", ifLocked = IfLocked.SKIP)
        public CompletableFuture<Long> unlessLocked() {
            return CompletableFuture.completedFuture(body());
        }

        @Async
        @Locked(name = "'async:pending'", waitFor = "20s")
        public CompletableFuture<String> pending(CompletableFuture<String> gate) {
            return gate;
        }
    }
}
