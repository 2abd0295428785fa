package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockKind;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Hold;
import dev.leasehold.testkit.history.Verdict;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Locked} methods of beans, on a real server: exclusion, names, the lease, errors. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
            .withBean(LockedServices.class)
            .withBean("naming", Naming.class)
            .withPropertyValues("leasehold.redis.max-recheck=100ms", "services.short-wait=200ms");

    private ApplicationContextRunner on(RedisServer redis) {
        return runner.withPropertyValues("leasehold.redis.uri=" + redis.uri());
    }

    @Test
    void sixteenThreadsOfTwoApplicationsNeverHoldTheLockTogether() {
        History history = new History();
        CounterResource counter = new CounterResource(history, false);
        int perThread = 30;
        on(server.get()).run(first -> on(server.get()).run(second -> {
            List<LockedServices> apps = List.of(first.getBean(LockedServices.class), second.getBean(LockedServices.class));
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    LockedServices app = apps.get(t % 2);
                    String holder = "app-" + (t % 2) + "/thread-" + t;
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < perThread; i++) {
                            app.increment("shared", counter, history, holder);
                        }
                        return null;
                    }));
                }
                for (Future<?> each : done) {
                    each.get(50, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
        }));
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
        assertThat(verdict.holds()).isEqualTo(16 * perThread);
        assertThat(counter.value()).as("no increment lost").isEqualTo(16L * perThread);
    }

    @Test
    void theNameIsEvaluatedFromTheArgumentsAndBeansForEachCall() {
        on(server.get()).run(context -> {
            LockedServices services = context.getBean(LockedServices.class);
            assertThat(AopUtils.isAopProxy(services)).isTrue();
            assertThat(services.byName(42, "eu")).isEqualTo("order:42:eu held=1");
            assertThat(services.byName(7, "us")).isEqualTo("order:7:us held=1");
            assertThat(services.byBean(5)).isEqualTo("tenant-a:5");
            assertThat(services.constantName()).isEqualTo("nightly-report");
            assertThat((Long) server.get().command("EXISTS", "order:42:eu")).as("released after the call").isZero();
        });
    }

    @Test
    void theLeaseIsFilledInAsAParameterAndIsLeaseCurrent() {
        on(server.get()).run(context -> {
            LockedServices services = context.getBean(LockedServices.class);
            LockedServices.Seen first = services.withLease(1, null);
            LockedServices.Seen second = services.withLease(1, null);
            assertThat(first.parameter()).isSameAs(first.current());
            assertThat(first.validInside()).isTrue();
            assertThat(first.parameter().lockName()).isEqualTo("pay:1");
            assertThat(second.parameter().token()).isGreaterThan(first.parameter().token());
            assertThat(first.parameter().isValid()).as("released when the method returned").isFalse();
            assertThatThrownBy(Lease::current).isInstanceOf(IllegalStateException.class);
        });
    }

    @Test
    void aTimeoutSurfacesUnchangedAndTheMethodDoesNotRun() {
        on(server.get()).run(context -> {
            LockedServices services = context.getBean(LockedServices.class);
            try (RedisLockClient other = RedisLocks.connect(server.get().uri());
                 Lease held = other.lock("order:9").acquire(Duration.ZERO)) {
                long start = System.nanoTime();
                assertThatThrownBy(() -> services.quick(9)).isExactlyInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining("order:9");
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(waitedMs).as("waited the placeholder's 200ms").isBetween(190L, 3_000L);
                assertThat(services.runs()).isZero();
                assertThat(held.isValid()).isTrue();
            }
            services.quick(9);
            assertThat(services.runs()).isOne();
        });
    }

    @Test
    void theMethodsOwnExceptionSurfacesUnchangedAndTheLockIsReleased() {
        on(server.get()).run(context -> {
            LockedServices services = context.getBean(LockedServices.class);
            IOException thrown = new IOException("disk full");
            assertThatThrownBy(() -> services.failing(3, thrown)).isSameAs(thrown);
            assertThat((Long) server.get().command("EXISTS", "failing:3")).isZero();
            assertThat(services.failingHeld()).as("the method ran under the lock").isTrue();
        });
    }

    @Test
    void readersShareTheLockAndAWriterWaitsForThem() throws Exception {
        on(server.get()).run(context -> {
            LockedServices services = context.getBean(LockedServices.class);
            twoInside("two readers inside at once", (inside, leave) -> services.read(1, inside, leave),
                    () -> assertThatThrownBy(() -> services.write(1)).isExactlyInstanceOf(LockTimeoutException.class));
            assertThat(services.write(1)).isEqualTo("doc:1");
            assertThat(services.fair(4)).isEqualTo("queue:4");
        });
    }

    @Test
    void aSemaphoreOfTwoPermitsLetsTwoCallsInAndAThirdWaits() throws Exception {
        on(server.get()).run(context -> {
            LockedServices services = context.getBean(LockedServices.class);
            twoInside("two permits held at once", services::permit,
                    () -> assertThatThrownBy(services::quickPermit).isExactlyInstanceOf(LockTimeoutException.class)
                            .hasMessageContaining("exports"));
            assertThat(services.quickPermit()).isEqualTo("exports");
        });
    }

    /**
     * Runs {@code call} on two threads at once, checks that both got inside, runs {@code whileInside},
     * then lets both leave and waits until they did.
     */
    private static void twoInside(String what, BiConsumer<CountDownLatch, CountDownLatch> call, Runnable whileInside)
            throws Exception {
        CountDownLatch bothInside = new CountDownLatch(2);
        CountDownLatch leave = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> first = pool.submit(() -> call.accept(bothInside, leave));
            Future<?> second = pool.submit(() -> call.accept(bothInside, leave));
            assertThat(bothInside.await(10, TimeUnit.SECONDS)).as(what).isTrue();
            whileInside.run();
            leave.countDown();
            first.get(10, TimeUnit.SECONDS);
            second.get(10, TimeUnit.SECONDS);
        } finally {
            leave.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void aNameThatEvaluatesToNullIsRefusedAndTheMethodDoesNotRun() {
        on(server.get()).run(context -> {
            LockedServices services = context.getBean(LockedServices.class);
            assertThatThrownBy(() -> services.byKey(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LockedServices.byKey(String)").hasMessageContaining("#key")
                    .hasMessageContaining("null");
            assertThat(services.runs()).isZero();
        });
    }

    /** {@code 'order:' + #id} with a null id would lock "order:null", one lock for every such call. */
    @Test
    void aNullArgumentJoinedIntoTheNameIsRefusedUnlessTheExpressionNamesTheCase() {
        on(server.get()).run(context -> {
            LockedServices services = context.getBean(LockedServices.class);
            assertThatThrownBy(() -> services.byOrder(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LockedServices.byOrder(Long)").hasMessageContaining("#id is null")
                    .hasMessageContaining("order:null");
            assertThat(services.runs()).isZero();
            assertThat(services.byOrderOrNone(null)).isEqualTo("order:none");
            assertThat(services.byOrderOrNone(7L)).isEqualTo("order:7");
            assertThat(services.byOrderGuarded(null)).isEqualTo("order:unknown");
            assertThat(services.runs()).isEqualTo(3);
        });
    }

    @Test
    void aLeaseLostWhileTheMethodRunsInterruptsItAndThrowsLeaseLost() {
        try (RedisServer frozen = RedisServer.builder().start()) {
            on(frozen).withPropertyValues("leasehold.redis.operation-timeout=200ms").run(context -> {
                LockedServices services = context.getBean(LockedServices.class);
                AtomicInteger interrupted = new AtomicInteger();
                Thread pauser = new Thread(() -> {
                    sleep(300);
                    frozen.pause();
                });
                pauser.start();
                long start = System.nanoTime();
                try {
                    assertThatThrownBy(() -> services.slow(interrupted)).isInstanceOf(LeaseLostException.class)
                            .hasMessageContaining("slow");
                } finally {
                    pauser.join();
                    frozen.resume();
                }
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000L);
                assertThat(interrupted.get()).as("the method's thread was interrupted").isOne();
            });
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A bean {@code @Locked} names refer to as {@code @naming}. */
    public static class Naming {
        public String prefix() {
            return "tenant-a:";
        }
    }

    /** The application's service, proxied by the starter. */
    public static class LockedServices {

        private final AtomicInteger ran = new AtomicInteger();
        private final AtomicBoolean failingHeld = new AtomicBoolean();

        record Seen(Lease parameter, Lease current, boolean validInside) {
        }

        /** Read through the proxy: a class proxy's own fields are not the bean's. */
        public int runs() {
            return ran.get();
        }

        public boolean failingHeld() {
            return failingHeld.get();
        }

        @Locked(name = "'counter:' + #key", waitFor = "30s")
        public void increment(String key, CounterResource counter, History history, String holder) {
            long acquired = System.nanoTime();
            long token = Lease.current().token();
            long read = counter.read(token);
            Thread.yield();
            counter.increment(holder, token, read);
            history.hold(new Hold(holder, token, acquired, System.nanoTime()));
        }

        @Locked(name = "'order:' + #id + ':' + #p1", waitFor = "5s")
        public String byName(long id, String region) {
            String name = Lease.current().lockName();
            return name + " held=" + server.get().command("EXISTS", name);
        }

        @Locked(name = "@naming.prefix() + #id")
        public String byBean(long id) {
            return Lease.current().lockName();
        }

        @Locked(name = "'nightly-report'", waitFor = "0")
        public String constantName() {
            return Lease.current().lockName();
        }

        @Locked(name = "#key")
        public void byKey(String key) {
            ran.incrementAndGet();
        }

        @Locked(name = "'order:' + #id")
        public void byOrder(Long id) {
            ran.incrementAndGet();
        }

        @Locked(name = "'order:' + (#id ?: 'none')")
        public String byOrderOrNone(Long id) {
            ran.incrementAndGet();
            return Lease.current().lockName();
        }

        @Locked(name = "#id == null ? 'order:unknown' : 'order:' + #id")
        public String byOrderGuarded(Long id) {
            ran.incrementAndGet();
            return Lease.current().lockName();
        }

        @Locked(name = "'pay:' + #id", waitFor = "5s", ttl = "10s")
        public Seen withLease(long id, Lease lease) {
            return new Seen(lease, Lease.current(), lease.isValid());
        }

        @Locked(name = "'order:' + #id", waitFor = "${services.short-wait}")
        public void quick(long id) {
            ran.incrementAndGet();
        }

        @Locked(name = "'failing:' + #id")
        public void failing(long id, IOException toThrow) throws IOException {
            failingHeld.set(server.get().command("EXISTS", "failing:" + id).equals(1L));
            throw toThrow;
        }

        @Locked(name = "'doc:' + #id", kind = LockKind.Read.class, waitFor = "5s")
        public void read(long id, CountDownLatch bothInside, CountDownLatch leave) {
            bothInside.countDown();
            try {
                leave.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Locked(name = "'doc:' + #id", kind = LockKind.Write.class, waitFor = "${services.short-wait}")
        public String write(long id) {
            return Lease.current().lockName();
        }

        @Locked(name = "'queue:' + #id", kind = LockKind.Fair.class, waitFor = "5s")
        public String fair(long id) {
            return Lease.current().lockName();
        }

        @Locked(name = "'exports'", kind = LockKind.Permits.class, permits = 2, waitFor = "5s")
        public void permit(CountDownLatch inside, CountDownLatch leave) {
            inside.countDown();
            try {
                leave.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Locked(name = "'exports'", kind = LockKind.Permits.class, permits = 2, waitFor = "${services.short-wait}")
        public String quickPermit() {
            return Lease.current().lockName();
        }

        @Locked(name = "'slow'", ttl = "600ms", waitFor = "5s")
        public void slow(AtomicInteger interrupted) {
            try {
                Thread.sleep(20_000);
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
            }
        }
    }
}
