package dev.leasehold.etcd;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The live threads at one moment, to check that a client left none of its own behind. */
final class Threads {

    /**
     * Threads of JVM-wide shared pools, which outlive any client by design: the JDK's, and the
     * retry library's one delay scheduler (Failsafe's, started by jetcd's first retry, one per JVM).
     */
    private static final List<String> SHARED = List.of("ForkJoinPool.commonPool", "CompletableFutureDelayScheduler",
            "FailsafeDelayScheduler",
            "process reaper", "leasehold-shutdown-reaper", "Keep-Alive-Timer");

    private final Set<Thread> before;

    private Threads(Set<Thread> before) {
        this.before = before;
    }

    static Threads snapshot() {
        return new Threads(Thread.getAllStackTraces().keySet());
    }

    /** Waits up to {@code patience} for every thread started since the snapshot to end. */
    void assertNoNewThreadsWithin(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        List<String> added;
        do {
            added = Thread.getAllStackTraces().keySet().stream()
                    .filter(thread -> !before.contains(thread) && thread.isAlive())
                    .map(Thread::getName)
                    .filter(name -> SHARED.stream().noneMatch(name::startsWith))
                    .collect(Collectors.toList());
            if (added.isEmpty()) {
                return;
            }
            Thread.sleep(50);
        } while (System.nanoTime() - deadline < 0);
        assertThat(added).as("threads left running").isEmpty();
    }
}
