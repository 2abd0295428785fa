package dev.leasehold.bench;

import javax.management.JMException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * What this JVM's heap retains: the heap in use right after a full collection, and the class
 * histogram of the live objects ({@code jcmd GC.class_histogram}, through the platform's
 * DiagnosticCommand MBean). Both collect first, so they pause the JVM: call them between measured
 * windows, never inside one.
 */
final class HeapProbe {

    /** One class's live objects in a histogram. */
    record Entry(String className, long instances, long bytes) {
    }

    /** A class's growth between two histograms, per unit (per lease, per lock name). */
    record Growth(String className, double instancesPerUnit, double bytesPerUnit) {
    }

    private HeapProbe() {
    }

    /**
     * The heap in use after a collection, median of {@code samples} collections: background work
     * (renewals, I/O) allocates between them, so one sample alone can include a burst of garbage.
     */
    static long usedAfterGc(int samples) {
        List<Double> used = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            System.gc();
            LockSupport.parkNanos(50_000_000);
            used.add((double) ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return (long) Spread.of(used).median();
    }

    /** Live objects per class, after a full collection. */
    static Map<String, Entry> histogram() {
        String text;
        try {
            text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
        } catch (JMException e) {
            throw new IllegalStateException("the JVM offers no class histogram (DiagnosticCommand MBean): " + e, e);
        }
        Map<String, Entry> entries = new HashMap<>();
        for (String line : text.split("\n")) {
            // "   1:        100000        4800000  dev.leasehold.engine.ManagedLease"
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 4 && fields[0].endsWith(":")) {
                entries.put(fields[3], new Entry(fields[3], Long.parseLong(fields[1]), Long.parseLong(fields[2])));
            }
        }
        return entries;
    }

    /**
     * The classes that grew most in bytes from {@code before} to {@code after}, per one of
     * {@code units}, largest first; at most {@code limit} of them.
     */
    static List<Growth> growth(Map<String, Entry> before, Map<String, Entry> after, long units, int limit) {
        Entry none = new Entry("", 0, 0);
        Growth[] all = after.values().stream().map(entry -> {
            Entry earlier = before.getOrDefault(entry.className(), none);
            return new Growth(entry.className(), (entry.instances() - earlier.instances()) / (double) units,
                    (entry.bytes() - earlier.bytes()) / (double) units);
        }).toArray(Growth[]::new);
        Arrays.sort(all, (a, b) -> Double.compare(b.bytesPerUnit(), a.bytesPerUnit()));
        return List.of(Arrays.copyOf(all, Math.min(limit, all.length)));
    }
}
