package dev.leasehold.spring;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What the application logs while this is open: slf4j-simple, the tests' logger, writes each line
 * to whatever {@code System.err} is at that moment, so this puts a copy of it in between (and still
 * passes everything on). Close it to put {@code System.err} back.
 */
final class LogCapture implements AutoCloseable {

    /** slf4j-simple's line: {@code [thread] LEVEL logger - message}. */
    private static final Pattern ABOVE_DEBUG = Pattern.compile("^\\[[^\\]]*\\] (INFO|WARN|ERROR) .*");
    private static final Pattern DEBUG = Pattern.compile("^\\[[^\\]]*\\] DEBUG .*");

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    private LogCapture() {
        OutputStream tee = new OutputStream() {
            @Override
            public synchronized void write(int b) {
                copy.write(b);
                original.write(b);
            }

            @Override
            public synchronized void write(byte[] bytes, int offset, int length) {
                copy.write(bytes, offset, length);
                original.write(bytes, offset, length);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    static LogCapture start() {
        return new LogCapture();
    }

    /** Everything logged so far. */
    String text() {
        return copy.toString(StandardCharsets.UTF_8);
    }

    /** The lines logged at INFO, WARN or ERROR (not the stack traces under them). */
    List<String> aboveDebug() {
        return text().lines().filter(line -> ABOVE_DEBUG.matcher(line).matches()).toList();
    }

    /** The lines logged at DEBUG. */
    List<String> debug() {
        return text().lines().filter(line -> DEBUG.matcher(line).matches()).toList();
    }

    @Override
    public void close() {
        System.err.flush();
        System.setErr(original);
    }
}
