package dev.leasehold.examples.spring;

import dev.leasehold.Lease;
import dev.leasehold.spring.IfLocked;
import dev.leasehold.spring.Locked;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** A job every instance schedules and one runs each night (docs/spring.md). */
@Component
public class NightlyReport {
    private final JdbcTemplate jdbc;

    public NightlyReport(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    // tag::scheduled[]
    @Scheduled(cron = "0 0 2 * * *")
    @Locked(name = "'nightly-report'", waitFor = "0", ifLocked = IfLocked.SKIP, holdAtLeast = "5m", maxHold = "1h")
    public void nightlyReport() {
        long token = Lease.current().token();                  // this run's lease
        jdbc.update("INSERT INTO reports (token) VALUES (?)", token);
    }
    // end::scheduled[]
}
