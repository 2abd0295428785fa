package dev.leasehold.zookeeper;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Holder ids of acquisitions the engine gave up, remembered for {@link #RETENTION_NANOS}: longer
 * than any create can stay in flight (the engine bounds each call, Curator's retries are bounded
 * too), so an answer that arrives after the abandon is recognised and its node deleted. Forgotten
 * after that, so a long-lived client keeps nothing.
 */
final class AbandonedHolders {

    private static final long RETENTION_NANOS = TimeUnit.MINUTES.toNanos(2);

    private final Map<String, Long> since = new ConcurrentHashMap<>();

    void add(String holder) {
        long now = System.nanoTime();
        since.values().removeIf(at -> now - at > RETENTION_NANOS);
        since.put(holder, now);
    }

    boolean contains(String holder) {
        return since.containsKey(holder);
    }
}
