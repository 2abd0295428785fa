package dev.leasehold.launcher;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/** Waits for a server process that has just been started to say in its log that it accepts connections. */
final class StartWait {

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private StartWait() {
    }

    /**
     * Returns once {@code ready} holds (it reads the log), checking every 20 ms.
     *
     * @param giveUp called once if {@code process} exits or {@code timeout} passes first, with why
     *     ({@code "exited"} or {@code "did not become ready within TIMEOUT"}): it cleans up and
     *     returns the exception to throw, so that it can read the log before or after the clean-up
     * @throws RuntimeException the one {@code giveUp} returns
     */
    static void untilReady(Process process, Duration timeout, BooleanSupplier ready,
            Function<String, RuntimeException> giveUp) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ready.getAsBoolean()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw giveUp.apply(process.isAlive() ? "did not become ready within " + timeout : "exited");
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
