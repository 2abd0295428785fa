package dev.leasehold.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time per group of Java threads ({@code lettuce-nioEventLoop-4-1} and {@code -4-2} are one
 * group), so a CPU figure can say where it went: the client's timer, its I/O threads, or the
 * JVM itself (GC and JIT, which are not Java threads: the process total minus all groups).
 */
final class ThreadCpu {

    /** The group of the JVM's own work: process CPU not accounted to any Java thread. */
    static final String JVM = "JVM (GC, JIT)";

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<Long, Long> nanosByThread = new HashMap<>();
    private final Map<Long, Long> allocatedByThread = new HashMap<>();
    private final Map<Long, String> groupByThread = new HashMap<>();
    private final double processSeconds;

    private ThreadCpu() {
        for (long id : THREADS.getAllThreadIds()) {
            long nanos = THREADS.getThreadCpuTime(id);
            var info = THREADS.getThreadInfo(id);
            if (nanos >= 0 && info != null) {
                nanosByThread.put(id, nanos);
                groupByThread.put(id, group(info.getThreadName()));
                if (THREADS instanceof com.sun.management.ThreadMXBean counting) {
                    allocatedByThread.put(id, counting.getThreadAllocatedBytes(id));
                }
            }
        }
        processSeconds = ProcessCpu.seconds();
    }

    /** CPU time of every live thread now. */
    static ThreadCpu snapshot() {
        return new ThreadCpu();
    }

    /**
     * The CPU each group used since {@code earlier}, in % of one core over {@code seconds}, largest
     * first, with {@link #JVM} for the rest of the process. Threads that ended in between are
     * counted in {@link #JVM}.
     */
    Map<String, Double> percentSince(ThreadCpu earlier, double seconds) {
        Map<String, Double> byGroup = new HashMap<>();
        double accounted = 0;
        for (Map.Entry<Long, Long> thread : nanosByThread.entrySet()) {
            long delta = thread.getValue() - earlier.nanosByThread.getOrDefault(thread.getKey(), 0L);
            byGroup.merge(groupByThread.get(thread.getKey()), delta / 1e9, Double::sum);
            accounted += delta / 1e9;
        }
        byGroup.put(JVM, Math.max(0, processSeconds - earlier.processSeconds - accounted));
        Map<String, Double> sorted = new LinkedHashMap<>();
        byGroup.entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> sorted.put(e.getKey(), 100 * e.getValue() / seconds));
        return sorted;
    }

    /**
     * Bytes the Java threads alive now allocated on the heap since {@code earlier} (threads that
     * ended in between are not counted); 0 where the JVM does not count allocations per thread.
     */
    long allocatedSince(ThreadCpu earlier) {
        long bytes = 0;
        for (Map.Entry<Long, Long> thread : allocatedByThread.entrySet()) {
            bytes += thread.getValue() - earlier.allocatedByThread.getOrDefault(thread.getKey(), 0L);
        }
        return bytes;
    }

    /** The thread name without its numbering: {@code redisson-netty-101-5} gives {@code redisson-netty}. */
    private static String group(String threadName) {
        return threadName.replaceAll("(-\\d+)+$", "");
    }
}
