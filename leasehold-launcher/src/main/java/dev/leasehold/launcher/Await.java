package dev.leasehold.launcher;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Polls a condition on servers that are settling (a group forming, a failover), for up to 30 s. */
final class Await {

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private Await() {
    }

    /**
     * Returns once {@code condition} holds; a condition that throws counts as not yet (a node
     * restarting or not yet reconfigured).
     *
     * @throws IllegalStateException naming {@code what} (with the last error as cause) after {@link #TIMEOUT}
     */
    static void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        throw new IllegalStateException("gave up waiting for " + what + " after " + TIMEOUT, last);
    }
}
