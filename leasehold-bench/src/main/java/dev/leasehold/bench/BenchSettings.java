package dev.leasehold.bench;

import java.time.Duration;
import java.util.List;

/**
 * How long and how hard each workload runs. {@link #full()} is the published run (about eleven
 * minutes on 2 cores); {@link #smoke()} runs every workload for one very short iteration so the
 * smoke test can prove the whole pipeline still works.
 */
record BenchSettings(String name, UncontendedWorkload.Settings uncontended, UncontendedWorkload.Settings family,
                     ContendedWorkload.Settings contended,
                     HandoffWorkload.Settings handoff, WatchdogWorkload.Settings watchdog,
                     UncontendedWorkload.Settings redlock) {

    static BenchSettings full() {
        return new BenchSettings("full",
                new UncontendedWorkload.Settings(List.of(1, 4, 16), 5, 1, 3, Duration.ofSeconds(1), 200),
                new UncontendedWorkload.Settings(List.of(1, 16), 5, 1, 3, Duration.ofSeconds(1), 200),
                new ContendedWorkload.Settings(8, 5, Duration.ofSeconds(2), Duration.ofSeconds(3), 400),
                new HandoffWorkload.Settings(5, 120, 100, Duration.ofMillis(5), 100),
                new WatchdogWorkload.Settings(10_000, Duration.ofSeconds(3), Duration.ofSeconds(6), Duration.ofSeconds(30),
                        Duration.ofSeconds(1)),
                new UncontendedWorkload.Settings(List.of(1), 5, 1, 3, Duration.ofSeconds(1), 100));
    }

    static BenchSettings smoke() {
        return new BenchSettings("smoke",
                new UncontendedWorkload.Settings(List.of(1, 2), 1, 0, 1, Duration.ofMillis(200), 5),
                new UncontendedWorkload.Settings(List.of(1, 2), 1, 0, 1, Duration.ofMillis(200), 5),
                new ContendedWorkload.Settings(3, 1, Duration.ofMillis(100), Duration.ofMillis(300), 20),
                new HandoffWorkload.Settings(1, 10, 3, Duration.ofMillis(2), 5),
                new WatchdogWorkload.Settings(50, Duration.ofMillis(300), Duration.ofMillis(300), Duration.ofMillis(600),
                        Duration.ofMillis(200)),
                new UncontendedWorkload.Settings(List.of(1), 1, 0, 1, Duration.ofMillis(200), 5));
    }
}
