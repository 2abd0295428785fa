package dev.leasehold.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Fresh lock names, {@code lock-N}, unique in this JVM: every run starts on locks no earlier run
 * touched, and {@link KeyCensus} recognises the names inside whatever keys a library derives.
 */
final class LockNames {

    private static final AtomicLong NEXT = new AtomicLong();

    private LockNames() {
    }

    static String next() {
        return "lock-" + NEXT.incrementAndGet();
    }
}
