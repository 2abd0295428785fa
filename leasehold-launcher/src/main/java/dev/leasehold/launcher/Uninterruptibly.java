package dev.leasehold.launcher;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Cleanup that an interrupt must not cut short. A close runs on interrupted threads (a Ctrl-C
 * handler, a cancelled task, a test that timed out); giving up there would strand processes and
 * directories, so the work runs to its end and the interrupt is kept for the caller.
 */
final class Uninterruptibly {

    private Uninterruptibly() {
    }

    /** Runs {@code cleanup} with the interrupt flag cleared, then restores the flag if it was set. */
    static void run(Runnable cleanup) {
        boolean interrupted = Thread.interrupted();
        try {
            cleanup.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits up to {@code timeout} for {@code process} to exit, ignoring interrupts on the way (the
     * flag is restored afterwards). Bounded, so it cannot hang a caller that was interrupted.
     *
     * @return whether the process exited in time
     */
    static boolean waitFor(Process process, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits up to {@code timeout} for {@code target} ({@code what}, for the message) to exit, ignoring
     * interrupts on the way, then stops tracking it for the shutdown hook.
     *
     * @throws IllegalStateException if it does not exit in time
     */
    static void awaitExit(Process target, Duration timeout, String what) {
        if (!waitFor(target, timeout)) {
            throw new IllegalStateException(what + " pid " + target.pid() + " did not exit within " + timeout);
        }
        ShutdownReaper.unregister(target);
    }
}
