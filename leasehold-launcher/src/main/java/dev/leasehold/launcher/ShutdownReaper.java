package dev.leasehold.launcher;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * JVM-wide registry of the child processes and working directories this package creates. A
 * shutdown hook kills the processes still alive and deletes the directories still present,
 * so a test that fails before closing its server leaves neither a running
 * {@code redis-server} nor its files behind.
 */
final class ShutdownReaper {

    private static final long EXIT_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ShutdownReaper::reap, "leasehold-shutdown-reaper"));
    }

    private ShutdownReaper() {
    }

    static void register(Process process) {
        PROCESSES.add(process);
    }

    static void unregister(Process process) {
        PROCESSES.remove(process);
    }

    static void register(Path directory) {
        DIRECTORIES.add(directory);
    }

    static void unregister(Path directory) {
        DIRECTORIES.remove(directory);
    }

    private static void reap() {
        // SIGKILL through the JDK, not kill(1): starting new processes while the JVM shuts
        // down is fragile, and SIGKILL also ends a SIGSTOPped process, so no SIGCONT is needed.
        PROCESSES.forEach(Process::destroyForcibly);
        // Directories go only once their servers are gone, or a dying server could still add a file.
        long deadline = System.nanoTime() + EXIT_WAIT_NANOS;
        try {
            for (Process process : PROCESSES) {
                process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        DIRECTORIES.forEach(Directories::deleteQuietly);
    }
}
