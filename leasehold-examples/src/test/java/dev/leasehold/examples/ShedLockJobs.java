package dev.leasehold.examples;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.shedlock.LeaseholdLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

import java.util.List;

/** docs/spring.md: an application's ShedLock configuration with Leasehold's provider (compiled; the executor form runs in IntegrationsExamplesTest). */
@Configuration
class ShedLockJobs {

    /** Where the nightly job writes, fenced. */
    interface Report {
        void write(List<String> rows, long token);
    }

    private final Report report;
    private final List<String> rows = List.of();

    ShedLockJobs(Report report) {
        this.report = report;
    }

    // tag::shedlock[]
    @Bean
    LockProvider lockProvider(LockClient locks) {   // was new JdbcTemplateLockProvider(...), new RedisLockProvider(...)
        return new LeaseholdLockProvider(locks);
    }

    @Scheduled(cron = "0 0 2 * * *")
    @SchedulerLock(name = "nightly", lockAtMostFor = "PT30M", lockAtLeastFor = "PT5M")
    void nightly() {
        Lease lease = LeaseholdLockProvider.currentLease().orElseThrow();
        report.write(rows, lease.token());           // a FenceGuard refuses a late holder's write
    }
    // end::shedlock[]
}
