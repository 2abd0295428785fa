package dev.leasehold.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code --redis-file} that gives no URI is a usage error, before any connection is tried, that
 * says what is wrong with the file and never shows its content (the URI points nowhere, so an
 * attempt to connect would end in exit 69 instead).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisFileTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(20);
    private static final String PASSWORD = "file-secret-p\u00e4ss";
    private static final String URI = "redis://:" + PASSWORD + "@127.0.0.1:1";

    @TempDir
    Path dir;

    /** It read the whole file: a larger one was read into memory, and /dev/zero ended in OutOfMemoryError. */
    @Test
    void aFileLargerThanTheLimitIsRefusedNamingTheLimit() throws IOException {
        Path large = Files.writeString(dir.resolve("large.uri"), URI + "\n" + "#".repeat(64 * 1024));

        assertThat(refused(large)).contains("--redis-file: " + large + " is larger than 64 KiB");
    }

    /** Opening a named pipe with no writer blocked for good, without a word; /dev/zero filled the heap. */
    @Test
    void aNamedPipeOrADeviceIsRefusedWithoutOpeningIt() throws Exception {
        Path fifo = dir.resolve("redis.fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();

        assertThat(refused(fifo)).contains(fifo + " is not a regular file").contains("$" + RedisOption.ENV_VAR);
        assertThat(refused(Path.of("/dev/zero"))).contains("/dev/zero is not a regular file");
    }

    /** It said "cannot be read (IOException); check its permissions". */
    @Test
    void aDirectoryIsNamedAsOne() throws IOException {
        Path directory = Files.createDirectory(dir.resolve("secrets"));

        assertThat(refused(directory)).contains(directory + " is a directory").doesNotContain("permissions");
    }

    /** It said "cannot be read (MalformedInputException); check its permissions". */
    @Test
    void aFileThatIsNotUtf8IsNamedAsSuch() throws IOException {
        Path utf16 = Files.writeString(dir.resolve("utf16.uri"), URI, StandardCharsets.UTF_16); // with its byte order mark
        Path utf16le = Files.writeString(dir.resolve("utf16le.uri"), URI, StandardCharsets.UTF_16LE); // without
        Path latin1 = Files.writeString(dir.resolve("latin1.uri"), URI, StandardCharsets.ISO_8859_1);

        for (Path file : new Path[] {utf16, utf16le, latin1}) {
            assertThat(refused(file)).as(file.toString()).contains(file + " is not UTF-8 text")
                    .doesNotContain("permissions");
        }
    }

    /** The usage error's stderr, which never shows the password (in any encoding the test wrote it in). */
    private String refused(Path file) {
        CliProcess inspect = CliProcess.start(dir, Map.of(), "inspect", "x", "--redis-file", file.toString());
        assertThat(inspect.awaitExit(EXIT_TIMEOUT)).as("exit code for " + file).isEqualTo(ExitCodes.USAGE);
        String stderr = inspect.stderr();
        assertThat(stderr).doesNotContain("file-secret").doesNotContain("f\0i\0l\0e");
        return stderr;
    }
}
