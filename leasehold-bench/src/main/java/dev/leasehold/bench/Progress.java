package dev.leasehold.bench;

import java.io.PrintStream;
import java.time.Duration;

/** One line per step on the console, with the time elapsed, so a long run shows where it is. */
final class Progress {

    private final PrintStream out;
    private final long startNanos = System.nanoTime();

    Progress(PrintStream out) {
        this.out = out;
    }

    void step(String what) {
        out.printf("[%4ds] %s%n", elapsed().toSeconds(), what);
        out.flush();
    }

    Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}
