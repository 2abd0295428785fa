package dev.leasehold.testkit.junit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits in a test for something another thread or a server does soon (a meter moving after a
 * callback, a process exiting), polling every 5 ms, instead of sleeping a guessed time.
 */
public final class Eventually {

    /** How long {@link #eventually(BooleanSupplier, String)} waits. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private Eventually() {
    }

    /**
     * Returns once {@code condition} holds, checked at once and then every 5 ms.
     *
     * @throws AssertionError naming {@code what} if it still does not hold after {@link #TIMEOUT},
     *                        or if the waiting thread is interrupted (its flag set again)
     */
    public static void eventually(BooleanSupplier condition, String what) {
        eventually(condition, what, TIMEOUT);
    }

    /** {@link #eventually(BooleanSupplier, String)} waiting up to {@code timeout}. */
    public static void eventually(BooleanSupplier condition, String what, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting until " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, interrupted);
            }
        }
    }
}
