package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import dev.leasehold.testkit.meters.MeterReadings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acceptance test: two instances of an application (two Spring contexts, one real
 * Redis) with the same {@code @Scheduled} job, every second, whose clocks are 300 ms apart (the
 * second instance's scheduler clock runs 300 ms behind, so it fires 300 ms later). With
 * {@code ifLocked = SKIP} and {@code holdAtLeast} the job runs once per period and the losing
 * instance logs nothing above DEBUG; without holdAtLeast it ran on both, one after the other.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ScheduledJobTest {

    private static final Duration SKEW = Duration.ofMillis(300);
    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    private final Runs runs = new Runs();

    private ApplicationContextRunner instance(String name, Duration clockBehind, Class<?> job) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
                .withUserConfiguration(Scheduling.class)
                .withBean(Runs.class, () -> runs)
                .withBean(job)
                .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("leasehold.redis.uri=" + server.get().uri(), "instance.name=" + name,
                        "instance.clock-behind-ms=" + clockBehind.toMillis());
    }

    /** Failed before hold-at-least: each period ran on both instances (the second found the lock free). */
    @Test
    void twoInstancesRunTheJobOncePerPeriodAndTheLoserLogsNothingAboveDebug() {
        try (LogCapture log = LogCapture.start()) {
            long[] skipped = new long[1];
            runBoth(SkippingJob.class, "job.hold-at-least=600ms", 5, contexts -> contexts.forEach(context ->
                    skipped[0] += acquireCount(context, "skipped")));
            Map<Long, List<Run>> byPeriod = runs.byPeriod();
            assertThat(byPeriod.size()).as("periods the job ran in").isGreaterThanOrEqualTo(4);
            assertThat(byPeriod.values()).as("one run per period: " + byPeriod).allSatisfy(inPeriod ->
                    assertThat(inPeriod).hasSize(1));
            assertThat(runs.instances()).as("every run held the lock").doesNotContainNull();
            assertThat(skipped[0]).as("the losers skipped").isGreaterThanOrEqualTo(3);
            assertThat(log.aboveDebug()).as("nothing above DEBUG, from either instance").isEmpty();
            assertThat(log.debug()).anySatisfy(line -> assertThat(line).contains("Skipped SkippingJob.run()")
                    .contains("'nightly-report'"));
        }
    }

    /** The first report, kept as the check that this test sees a second run when there is one. */
    @Test
    void withoutHoldAtLeastTheSecondInstanceRunsTheJobAgain() {
        runBoth(SkippingJob.class, "job.hold-at-least=", 3, contexts -> {
        });
        assertThat(runs.byPeriod().values()).as("some period ran twice: " + runs.byPeriod())
                .anySatisfy(inPeriod -> assertThat(inPeriod).hasSize(2));
    }

    /** The log check catches what FAIL logs: Spring's ERROR for the loser, whose message is one line. */
    @Test
    void inFailModeTheLoserThrowsOneLineNamingTheMethodAndTheLock() {
        try (LogCapture log = LogCapture.start()) {
            runBoth(FailingJob.class, "job.hold-at-least=600ms", 3, contexts -> {
            });
            assertThat(runs.byPeriod().values()).allSatisfy(inPeriod -> assertThat(inPeriod).hasSize(1));
            assertThat(log.aboveDebug()).anySatisfy(line -> assertThat(line).contains("ERROR")
                    .contains("scheduled task"));
            assertThat(log.text()).contains("dev.leasehold.LockTimeoutException: @Locked FailingJob.run() did not run: "
                    + "lock 'nightly-report' was not acquired within PT0S");
        }
    }

    /**
     * Failed before (closed client): the lock client was closed while the scheduler still fired the
     * job, so shutting an instance down logged Spring's ERROR with a LockClientClosedException.
     */
    @Test
    void aJobFiringWhileTheApplicationShutsDownNeverFindsTheLockClientClosed() {
        try (LogCapture log = LogCapture.start()) {
            for (int i = 0; i < 3; i++) {
                instance("a", Duration.ZERO, BusyJob.class).run(a -> {
                    assertThat(a).hasNotFailed();
                    // Closes a moment before the next firing, which then lands in the shutdown.
                    Thread.sleep(1_000 - System.currentTimeMillis() % 1_000 + 1_000 - 50);
                });
            }
            assertThat(runs.instances()).as("the job ran").isNotEmpty();
            assertThat(log.aboveDebug()).as("nothing above DEBUG while shutting down").isEmpty();
        }
    }

    /**
     * Starts instance a, then b (b's clock {@link #SKEW} behind), lets the job fire for
     * {@code periods} periods with both up, then hands both contexts to {@code check}.
     */
    private void runBoth(Class<?> job, String holdAtLeast, int periods,
                         java.util.function.Consumer<List<ApplicationContext>> check) {
        instance("a", Duration.ZERO, job).withPropertyValues(holdAtLeast).run(a ->
                instance("b", SKEW, job).withPropertyValues(holdAtLeast).run(b -> {
                    assertThat(a).hasNotFailed();
                    assertThat(b).hasNotFailed();
                    runs.clear();
                    Thread.sleep(periods * 1_000L + 500);
                    check.accept(List.of(a, b));
                }));
    }

    private static long acquireCount(ApplicationContext context, String outcome) {
        return new MeterReadings(context.getBean(MeterRegistry.class)).acquisitions(outcome);
    }

    /** Each instance's scheduler, its clock {@code instance.clock-behind-ms} behind the real one. */
    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Scheduling {
        @Bean
        ThreadPoolTaskScheduler taskScheduler(Environment environment) {
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            long behindMs = environment.getRequiredProperty("instance.clock-behind-ms", Long.class);
            scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), Duration.ofMillis(-behindMs)));
            scheduler.setThreadNamePrefix("instance-" + environment.getRequiredProperty("instance.name") + "-");
            return scheduler;
        }
    }

    record Run(String instance, long atMillis, long token) {
    }

    /** The runs of both instances. */
    public static class Runs {
        private final List<Run> all = new CopyOnWriteArrayList<>();

        void add(String instance) {
            all.add(new Run(instance, System.currentTimeMillis(), Lease.current().token()));
        }

        void clear() {
            all.clear();
        }

        List<String> instances() {
            return all.stream().map(Run::instance).toList();
        }

        /** The runs by the second they started in: the period of a job that fires every second. */
        Map<Long, List<Run>> byPeriod() {
            return all.stream().collect(Collectors.groupingBy(run -> run.atMillis() / 1_000, java.util.TreeMap::new,
                    Collectors.toList()));
        }
    }

    /** The job as the README writes it: every instance has it, one runs it each period. */
    public static class SkippingJob {
        private final Runs runs;
        private final String instance;

        public SkippingJob(Runs runs, Environment environment) {
            this.runs = runs;
            this.instance = environment.getRequiredProperty("instance.name");
        }

        @Scheduled(cron = "* * * * * *")
        @Locked(name = "'nightly-report'", waitFor = "0", ifLocked = IfLocked.SKIP, holdAtLeast = "${job.hold-at-least}")
        public void run() {
            runs.add(instance);
        }
    }

    /** A job that fires every second, as a cron job does, so one fires while its application shuts down. */
    public static class BusyJob {
        private final Runs runs;

        public BusyJob(Runs runs) {
            this.runs = runs;
        }

        @Scheduled(cron = "* * * * * *")
        @Locked(name = "'busy'", waitFor = "0", ifLocked = IfLocked.SKIP)
        public void run() {
            runs.add("busy");
        }
    }

    /** The same job in FAIL mode. */
    public static class FailingJob {
        private final Runs runs;
        private final String instance;

        public FailingJob(Runs runs, Environment environment) {
            this.runs = runs;
            this.instance = environment.getRequiredProperty("instance.name");
        }

        @Scheduled(cron = "* * * * * *")
        @Locked(name = "'nightly-report'", waitFor = "0", holdAtLeast = "${job.hold-at-least}")
        public void run() {
            runs.add(instance);
        }
    }
}
