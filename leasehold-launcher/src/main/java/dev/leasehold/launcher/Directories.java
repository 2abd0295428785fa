package dev.leasehold.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deletes a server's working directory. */
final class Directories {

    private Directories() {
    }

    /**
     * Deletes {@code dir} and everything in it; a directory already gone is fine.
     *
     * @throws IOException if something cannot be deleted
     */
    static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (NoSuchFileException e) {
            // already gone
        }
    }

    /** {@link #delete} for the shutdown hook, which has nobody left to report to. */
    static void deleteQuietly(Path dir) {
        try {
            delete(dir);
        } catch (IOException e) {
            // the JVM is exiting; the directory stays in the temporary area
        }
    }
}
