package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockClient;
import dev.leasehold.LockClientClosedException;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.testkit.junit.TestServer;
import dev.leasehold.testkit.meters.MeterReadings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The scheduled-job attributes of {@link Locked} on a real server: {@code ifLocked = SKIP} returns
 * quietly and counts {@code outcome=skipped}, a failed acquire is one line naming the method and the
 * lock, and {@code leaseTime} and {@code maxHold} reach the lease.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedJobTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
            .withBean(Jobs.class)
            .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("leasehold.redis.max-recheck=100ms");

    private ApplicationContextRunner on(RedisServer redis) {
        return runner.withPropertyValues("leasehold.redis.uri=" + redis.uri());
    }

    /** Before: no SKIP; each loser of a scheduled job threw, and Spring logged an ERROR with a trace. */
    @Test
    void skipReturnsWithoutRunningLogsOnlyAtDebugAndCountsSkipped() {
        on(server.get()).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            MeterReadings meters = new MeterReadings(context.getBean(MeterRegistry.class));
            try (RedisLockClient other = RedisLocks.connect(server.get().uri());
                 Lease held = other.lock("job:report").acquire(Duration.ZERO);
                 LogCapture log = LogCapture.start()) {
                jobs.report();
                assertThat(jobs.summary()).isNull();
                assertThat(jobs.maybe()).isEmpty();
                assertThat(jobs.runs()).as("skipped, not run").isZero();
                assertThat(held.isValid()).isTrue();
                assertThat(log.aboveDebug()).as("nothing above DEBUG").isEmpty();
                assertThat(log.debug()).anySatisfy(line -> assertThat(line)
                        .contains("Skipped Jobs.summary()").contains("'job:report'"));
            }
            assertThat(meters.acquisitions("lock", "skipped")).isEqualTo(3);
            assertThat(meters.acquisitions("lock", "timeout")).as("a skip is no timeout").isZero();
            assertThat(meters.waited("skipped", TimeUnit.MILLISECONDS)).as("summary() waited its 100ms")
                    .isGreaterThanOrEqualTo(100);

            jobs.report();
            assertThat(jobs.summary()).isEqualTo("done");
            assertThat(jobs.maybe()).contains("done");
            assertThat(jobs.runs()).isEqualTo(3);
            assertThat(meters.acquisitions("lock", "acquired")).isEqualTo(3);
        });
    }

    /** Before: the engine's message named the lock only, and its trace had no frame of the caller. */
    @Test
    void aTimeoutInFailModeIsOneLineNamingTheMethodAndTheLock() {
        on(server.get()).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (RedisLockClient other = RedisLocks.connect(server.get().uri());
                 Lease held = other.lock("order:7").acquire(Duration.ZERO)) {
                LockTimeoutException thrown = catchThrowableOfType(LockTimeoutException.class, () -> jobs.pay(7));
                assertThat(thrown).isExactlyInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining("Jobs.pay(long)").hasMessageContaining("'order:7'")
                        .hasMessageContaining("another holder kept it").hasMessageContaining("ifLocked = SKIP")
                        .hasNoCause();
                assertThat(thrown.getMessage()).doesNotContain("\n");
                assertThat(thrown.lockName()).isEqualTo("order:7");
                assertThat(thrown.waited()).isEqualTo(Duration.ofMillis(100));
                assertThat(callersFrame(thrown)).as("thrown on the caller's thread").isTrue();
                assertThat(jobs.runs()).isZero();
            }
        });
    }

    @Test
    void anUnreachableServerIsOneLineNamingTheMethodAndTheLockWithTheTransportErrorAsCause() {
        RedisServer doomed = RedisServer.builder().start();
        try {
            on(doomed).withPropertyValues("leasehold.redis.operation-timeout=300ms").run(context -> {
                Jobs jobs = context.getBean(Jobs.class);
                jobs.report();
                doomed.kill();
                Map<String, Runnable> calls = Map.of("order:8", () -> jobs.pay(8), "job:report", jobs::report);
                calls.forEach((lock, call) -> {
                    LockUnavailableException thrown = catchThrowableOfType(LockUnavailableException.class, call::run);
                    assertThat(thrown).as("SKIP skips a held lock, not an outage")
                            .isExactlyInstanceOf(LockUnavailableException.class)
                            .hasMessageContaining("did not run").hasMessageContaining("'" + lock + "'");
                    assertThat(thrown.getMessage()).contains(lock.equals("order:8") ? "Jobs.pay(long)" : "Jobs.report()")
                            .doesNotContain("\n");
                    assertThat(thrown.getCause()).as("the transport error").isNotNull()
                            .isNotInstanceOf(LeaseholdException.class);
                    assertThat(thrown.failures()).isNotEmpty();
                    assertThat(callersFrame(thrown)).isTrue();
                });
                assertThat(jobs.runs()).isOne();
            });
        } finally {
            doomed.close();
        }
    }

    /** A scheduled call under way while the application shuts down finds the client closed: SKIP skips it. */
    @Test
    void aClosedClientSkipsInSkipModeAndThrowsInFailMode() {
        on(server.get()).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            context.getBean(LockClient.class).close();
            try (LogCapture log = LogCapture.start()) {
                jobs.report();
                assertThat(log.aboveDebug()).isEmpty();
                assertThat(log.debug()).anySatisfy(line -> assertThat(line).contains("Skipped Jobs.report()")
                        .contains("lock client is closed"));
            }
            assertThatThrownBy(() -> jobs.pay(1)).isInstanceOf(LockClientClosedException.class);
            assertThat(jobs.runs()).isZero();
        });
    }

    /** Before: there was no leaseTime nor maxHold on the annotation. */
    @Test
    void leaseTimeIsAFixedLeaseAndMaxHoldEndsTheWatchdog() {
        on(server.get()).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            Duration[] seen = jobs.fixed();
            assertThat(seen[0]).as("Lease.current().remaining() under leaseTime = 5s, not the 30 s ttl")
                    .isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5));
            assertThat(seen[1]).as("the key's PTTL").isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5));

            long start = System.nanoTime();
            assertThatThrownBy(jobs::outlivesItsLeaseTime).as("a fixed lease is not renewed")
                    .isInstanceOf(LeaseLostException.class);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000L);

            start = System.nanoTime();
            assertThatThrownBy(jobs::outlivesItsMaxHold).isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining("maxHold");
            long heldMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(heldMs).as("renewed past its 300 ms ttl, up to its maxHold").isGreaterThanOrEqualTo(600L)
                    .isLessThan(5_000L);
            assertThat(jobs.interrupted()).isEqualTo(2);
        });
    }

    private static boolean callersFrame(Throwable thrown) {
        return Arrays.stream(thrown.getStackTrace())
                .anyMatch(frame -> frame.getClassName().startsWith(LockedJobTest.class.getName()));
    }

    /** Scheduled-job methods of an application, proxied by the starter. */
    public static class Jobs {

        private final AtomicInteger ran = new AtomicInteger();
        private final AtomicInteger interrupted = new AtomicInteger();

        /** Read through the proxy: a class proxy's own fields are not the bean's. */
        public int runs() {
            return ran.get();
        }

        public int interrupted() {
            return interrupted.get();
        }

        @Locked(name = "'job:report'", waitFor = "0", ifLocked = IfLocked.SKIP)
        public void report() {
            ran.incrementAndGet();
        }

        @Locked(name = "'job:report'", waitFor = "100ms", ifLocked = IfLocked.SKIP)
        public String summary() {
            ran.incrementAndGet();
            return "done";
        }

        @Locked(name = "'job:report'", waitFor = "0", ifLocked = IfLocked.SKIP)
        public Optional<String> maybe() {
            ran.incrementAndGet();
            return Optional.of("done");
        }

        @Locked(name = "'order:' + #id", waitFor = "100ms")
        public void pay(long id) {
            ran.incrementAndGet();
        }

        @Locked(name = "'job:fixed'", leaseTime = "5s", waitFor = "5s")
        public Duration[] fixed() {
            long pttl = (Long) server.get().command("PTTL", "job:fixed");
            return new Duration[] {Lease.current().remaining(), Duration.ofMillis(pttl)};
        }

        @Locked(name = "'job:short-fixed'", leaseTime = "300ms", waitFor = "5s")
        public void outlivesItsLeaseTime() {
            sleepUntilInterrupted();
        }

        @Locked(name = "'job:capped'", ttl = "300ms", maxHold = "600ms", waitFor = "5s")
        public void outlivesItsMaxHold() {
            sleepUntilInterrupted();
        }

        private void sleepUntilInterrupted() {
            try {
                Thread.sleep(10_000);
            } catch (InterruptedException lost) {
                interrupted.incrementAndGet();
            }
        }
    }
}
