package dev.leasehold.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates and deletes a server's working directory. */
final class Directories {

    private static final Logger LOG = LoggerFactory.getLogger(Directories.class);

    private Directories() {
    }

    /**
     * Creates a fresh temporary directory named {@code prefix...} for {@code server} (a name for the
     * message, e.g. {@code PostgreSQL}) and has the {@link ShutdownReaper} track it, so that it goes
     * when the JVM exits if {@link #deleteRegistered} is never called.
     *
     * @throws UncheckedIOException if the directory cannot be created
     */
    static Path createRegistered(String prefix, String server) {
        Path dir;
        try {
            dir = Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for " + server, e);
        }
        ShutdownReaper.register(dir);
        return dir;
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

    /**
     * Deletes {@code dir}, a directory the {@link ShutdownReaper} tracks, when its {@code server}
     * (a name for the log, e.g. {@code PostgreSQL}) is done with it, and stops tracking it; if
     * something cannot be deleted, logs a warning and leaves the directory to the reaper, which
     * tries again when the JVM exits.
     */
    static void deleteRegistered(Path dir, String server) {
        try {
            delete(dir);
            ShutdownReaper.unregister(dir);
        } catch (IOException e) {
            LOG.warn("could not delete {} directory {}; it goes when the JVM exits", server, dir, e);
        }
    }
}
