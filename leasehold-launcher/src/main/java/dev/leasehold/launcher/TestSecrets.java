package dev.leasehold.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The passwords that test servers were started with, written one per line to the file named by the
 * system property {@value #PROPERTY} (the build sets it for test runs), so that {@link LogScan}
 * can prove afterwards that none of them reached a log. Without the property nothing is written.
 */
public final class TestSecrets {

    /** System property naming the file that collects the secrets. */
    public static final String PROPERTY = "leasehold.test.secretsFile";

    private TestSecrets() {
    }

    /**
     * Appends {@code secret} to the secrets file, if the build asked for one. The launchers record
     * the passwords they start servers with; a test records a password it sets on a server itself
     * (e.g. through the server's own API).
     */
    public static void record(String secret) {
        String file = System.getProperty(PROPERTY);
        if (file == null || file.isEmpty()) {
            return;
        }
        try {
            Path path = Path.of(file);
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
            Files.write(path, List.of(secret), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record a test secret in " + file, e);
        }
    }
}
