package dev.leasehold.launcher;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Runs a short helper command ({@code redis-server --version}, {@code kill}, {@code openssl}) and captures its output. */
final class Exec {

    /**
     * What a command did.
     *
     * @param finished whether it exited before the timeout (it was killed otherwise)
     * @param exitCode its exit code, or -1 when it did not finish
     * @param output its standard output and error, interleaved
     */
    record Result(boolean finished, int exitCode, String output) {
        boolean succeeded() {
            return finished && exitCode == 0;
        }
    }

    private Exec() {
    }

    /**
     * Runs {@code command}, waiting at most {@code timeout}; a command still running then is killed.
     *
     * @throws IOException if the program cannot be started, or the wait is interrupted
     *     ({@link InterruptedIOException}, with the interrupt flag restored)
     */
    static Result run(Duration timeout, String... command) throws IOException {
        // Output goes to a file rather than a pipe: a pipe has to be drained while waiting,
        // and reading it would block forever on a command that never exits.
        Path output = Files.createTempFile("leasehold-exec-", ".out");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            ShutdownReaper.register(process);
            try {
                process.getOutputStream().close(); // a command that prompts reads end-of-input instead of hanging
                boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (!finished) {
                    process.destroyForcibly().waitFor();
                }
                String text = new String(Files.readAllBytes(output), StandardCharsets.UTF_8);
                return new Result(finished, finished ? process.exitValue() : -1, text);
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while running " + String.join(" ", command));
            } finally {
                ShutdownReaper.unregister(process);
            }
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
