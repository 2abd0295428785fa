package dev.leasehold.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/**
 * {@code leasehold} run as a real child process, as a user runs it: a JVM of its own on the
 * test class path, so signals, exit codes, process groups and stdio are the real ones. Its
 * stdout and stderr go to files, read once it has exited.
 */
final class CliProcess {

    /**
     * Flags that make a short-lived JVM start faster; nothing the command relies on. The JVM's own
     * logging is off so that a warning about the class-data archive never reaches the stderr tests read.
     */
    private static final List<String> FAST_START = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xlog:disable");
    private static final ClassDataSharing CDS = new ClassDataSharing(Path.of("target"), System.getProperty("java.class.path"));

    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private CliProcess(Process process, Path stdout, Path stderr) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Starts {@code leasehold args...} in {@code dir} with {@code env} added to this JVM's environment. */
    static CliProcess start(Path dir, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>();
        // As from a terminal, SIGINT does what Ctrl-C does: a build started by a shell's '&' passes
        // SIGINT on ignored, and a JVM that inherits it ignored never installs its handler. env execs java, same pid.
        command.addAll(List.of("env", "--default-signal=INT"));
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(FAST_START);
        ClassDataSharing.Launch launch = CDS.nextLaunch();
        command.addAll(launch.options());
        command.addAll(List.of("-cp", CDS.classPath(), Main.class.getName()));
        command.addAll(List.of(args));
        try {
            Path out = Files.createTempFile(dir, "stdout-", ".txt");
            Path err = Files.createTempFile(dir, "stderr-", ".txt");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            builder.environment().remove(RedisOption.ENV_VAR);
            builder.environment().putAll(env);
            Process process = builder.start();
            process.getOutputStream().close();
            CDS.launched(launch, process);
            return new CliProcess(process, out, err);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Process process() {
        return process;
    }

    /** Waits for the exit and returns the exit code; kills the process and fails the test after {@code timeout}. */
    int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                fail("leasehold did not exit within " + timeout + "; stderr so far:\n" + stderr());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return process.exitValue();
    }

    String stdout() {
        return read(stdout);
    }

    String stderr() {
        return read(stderr);
    }

    /** Kills the process if a failed test left it running. */
    void destroy() {
        process.destroyForcibly();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
