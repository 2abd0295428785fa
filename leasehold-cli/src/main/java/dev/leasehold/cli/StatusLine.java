package dev.leasehold.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A progress line on stderr. On a terminal it is one line rewritten in place; otherwise (a log
 * file, a pipe, cron's mail) each update is a plain line, printed only when it says something
 * new or every {@value #PLAIN_REPEAT_SECONDS} seconds, so a long wait does not flood the log.
 */
final class StatusLine {

    private static final int PLAIN_REPEAT_SECONDS = 10;
    private static final String CLEAR_LINE = "\r\033[K";

    private final PrintWriter err;
    private final boolean terminal;
    private boolean showing;
    private long lastPlainNanos;

    StatusLine(PrintWriter err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
    }

    /**
     * In terminal mode when the JVM has a console (stdin and stdout are a terminal) and, where
     * {@code /proc} tells, stderr is one too: with stderr redirected to a file, escape codes
     * would end up in the file.
     */
    static StatusLine onStderr(PrintWriter err) {
        return new StatusLine(err, System.console() != null && stderrMayBeTerminal());
    }

    private static boolean stderrMayBeTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException e) {
            return true; // cannot tell: trust the console check alone
        }
    }

    boolean isTerminal() {
        return terminal;
    }

    /**
     * Shows {@code text}. In plain mode it is printed if {@code news} (it differs in substance
     * from the last one) or if the last plain line is old.
     */
    synchronized void update(String text, boolean news) {
        if (terminal) {
            err.print(CLEAR_LINE + text);
            showing = true;
        } else {
            long now = System.nanoTime();
            if (!news && now - lastPlainNanos < TimeUnit.SECONDS.toNanos(PLAIN_REPEAT_SECONDS)) {
                return;
            }
            err.println(text);
            lastPlainNanos = now;
        }
        err.flush();
    }

    /** Removes the terminal line, so the next message starts on a clean line. */
    synchronized void clear() {
        if (showing) {
            err.print(CLEAR_LINE);
            err.flush();
            showing = false;
        }
    }
}
