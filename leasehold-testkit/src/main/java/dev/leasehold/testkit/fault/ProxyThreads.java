package dev.leasehold.testkit.fault;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/** Starts a proxy's named daemon threads and remembers them, so closing the proxy can wait for every one. */
final class ProxyThreads {

    private final String prefix;
    private final Set<Thread> started = ConcurrentHashMap.newKeySet();

    ProxyThreads(String prefix) {
        this.prefix = prefix;
    }

    /** Starts a daemon thread named {@code prefix + suffix}. */
    Thread start(String suffix, Runnable body) {
        started.removeIf(thread -> !thread.isAlive()); // keeps a long-lived proxy from accumulating dead threads
        Thread thread = new Thread(body, prefix + suffix);
        thread.setDaemon(true);
        started.add(thread);
        thread.start();
        return thread;
    }

    /**
     * Waits until every thread started so far has ended.
     *
     * @throws IllegalStateException if some are still running after {@code timeout}, naming them
     */
    void joinAll(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            for (Thread thread : List.copyOf(started)) {
                long remainingMillis = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
                thread.join(remainingMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Thread> running = started.stream().filter(Thread::isAlive).toList();
        if (!running.isEmpty()) {
            throw new IllegalStateException("proxy threads still running after " + timeout + ": "
                    + running.stream().map(Thread::getName).collect(Collectors.joining(", ")));
        }
    }
}
