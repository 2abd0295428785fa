package dev.leasehold.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The demo's timeline, printed row by row as things happen: milliseconds since the run began,
 * who acted, what they did, with which fencing token, and what came of it. Two clients write
 * to it from their own threads.
 */
final class Timeline {

    private static final String ROW = "%5s  %-3s  %-42s  %-16s  %s";

    private final PrintWriter out;
    private final long startNanos = System.nanoTime();

    Timeline(PrintWriter out) {
        this.out = out;
        line("ms", "who", "what", "token", "result");
        line("-----", "---", "-".repeat(42), "-".repeat(16), "-".repeat(24));
    }

    synchronized void row(String who, String what, long token, String result) {
        print(who, what, Long.toString(token), result);
    }

    /** A row that involves no token but has a result, such as something done to a server. */
    synchronized void row(String who, String what, String result) {
        print(who, what, "", result);
    }

    /** A row that involves no token, such as the start of a pause. */
    synchronized void row(String who, String what) {
        print(who, what, "", "");
    }

    private void print(String who, String what, String token, String result) {
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        line(Long.toString(elapsed), who, what, token, result);
    }

    private void line(String... columns) {
        out.println(String.format(Locale.ROOT, ROW, (Object[]) columns).stripTrailing());
        out.flush();
    }
}
