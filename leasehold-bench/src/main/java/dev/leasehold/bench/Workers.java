package dev.leasehold.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntConsumer;

/**
 * Runs the same body on several platform threads and joins them, rethrowing the first failure
 * (a broken lock, a token that went backwards, a client error) so that no workload reports
 * figures from a run that went wrong.
 */
final class Workers {

    private Workers() {
    }

    /** Runs {@code body(i)} for i in [0, count) on fresh threads named {@code prefix-i}, and waits for all. */
    static void run(String prefix, int count, IntConsumer body) {
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int index = i;
            Thread thread = new Thread(() -> {
                try {
                    body.accept(index);
                } catch (Throwable t) {
                    failures.add(t);
                }
            }, prefix + "-" + i);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + prefix + " workers", e);
            }
        }
        Throwable failure = failures.peek();
        if (failure != null) {
            throw new IllegalStateException(prefix + " worker failed: " + failure, failure);
        }
    }
}
