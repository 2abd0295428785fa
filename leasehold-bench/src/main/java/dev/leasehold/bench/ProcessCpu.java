package dev.leasehold.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time of this JVM, and of the whole machine from {@code /proc/stat}. */
final class ProcessCpu {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private ProcessCpu() {
    }

    /** CPU seconds this JVM used so far, all threads (client I/O, timers, JIT, GC). */
    static double seconds() {
        return OS.getProcessCpuTime() / 1e9;
    }

    /**
     * CPU seconds the whole machine spent busy so far (all processes), from the first line of
     * {@code /proc/stat}; NaN where that file does not exist.
     */
    static double machineBusySeconds() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
            long busy = 0;
            for (int i = 1; i < fields.length && i <= 8; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(fields[i]);
                }
            }
            return busy / 100.0; // USER_HZ is 100 on Linux
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** The 1-minute load average, or NaN. */
    static double loadAverage() {
        return OS.getSystemLoadAverage();
    }
}
