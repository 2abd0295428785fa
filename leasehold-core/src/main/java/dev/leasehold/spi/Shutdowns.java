package dev.leasehold.spi;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** The end of what a backend owns, the same way in every backend's {@link Backend#close()}. */
public final class Shutdowns {

    private Shutdowns() {
    }

    /**
     * Shuts {@code executor} down, lets its running and queued tasks finish for up to {@code grace},
     * then interrupts what is left. Returns at once when the caller is interrupted, after interrupting
     * the tasks, with the caller's interrupt status set again.
     */
    public static void executor(ExecutorService executor, Duration grace) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
