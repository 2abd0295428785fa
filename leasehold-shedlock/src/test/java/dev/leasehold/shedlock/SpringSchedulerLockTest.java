package dev.leasehold.shedlock;

import dev.leasehold.LockClient;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ShedLock application as its users write it ({@code @EnableSchedulerLock}, {@code @SchedulerLock}),
 * whose only change is the {@link LockProvider} bean, run as two instances (two Spring contexts, each
 * with its own client of one real Redis) whose job fires a moment apart.
 */
class SpringSchedulerLockTest {

    /** The tokens of the runs of every instance, in the order they ran. */
    private static final List<Long> RUNS = new CopyOnWriteArrayList<>();

    @Configuration
    @EnableSchedulerLock(interceptMode = EnableSchedulerLock.InterceptMode.PROXY_METHOD, defaultLockAtMostFor = "PT30S")
    static class Application {

        @Bean(destroyMethod = "close")
        LockClient lockClient() {
            return Backends.redisClient();
        }

        /** The one bean a ShedLock application changes. */
        @Bean
        LockProvider lockProvider(LockClient lockClient) {
            return new LeaseholdLockProvider(lockClient);
        }

        @Bean
        NightlyJob nightlyJob() {
            return new NightlyJob();
        }
    }

    static class NightlyJob {

        @SchedulerLock(name = "shedlock-spring-nightly", lockAtMostFor = "PT10S", lockAtLeastFor = "PT1S")
        public void run() {
            LockAssert.assertLocked();
            RUNS.add(LeaseholdLockProvider.currentLease().orElseThrow().token());
        }
    }

    @Test
    void twoInstancesFiringAMomentApartRunTheJobOncePerLockAtLeastFor() {
        try (AnnotationConfigApplicationContext one = new AnnotationConfigApplicationContext(Application.class);
             AnnotationConfigApplicationContext other = new AnnotationConfigApplicationContext(Application.class)) {
            long firstFired = System.nanoTime();
            one.getBean(NightlyJob.class).run();
            other.getBean(NightlyJob.class).run();
            one.getBean(NightlyJob.class).run();
            assertThat(RUNS).as("the first run finished at once, yet lockAtLeastFor keeps the others out").hasSize(1);

            ProviderFixture.sleep(Duration.ofMillis(1300).minusNanos(System.nanoTime() - firstFired));
            other.getBean(NightlyJob.class).run();
            assertThat(RUNS).as("the next period runs on whichever instance fires first").hasSize(2);
            assertThat(RUNS.get(1)).as("its token exceeds the first run's").isGreaterThan(RUNS.get(0));
        }
    }
}
