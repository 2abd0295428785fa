package dev.leasehold.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where the PostgreSQL server programs ({@code initdb}, {@code postgres}) are: the directory named by
 * {@code LEASEHOLD_PG_BIN}, else the newest {@code /usr/lib/postgresql/N/bin} (Debian's
 * {@code postgresql} package), else the directory of {@code postgres} on the {@code PATH}.
 */
final class PostgresBinaries {

    static final String ENV = "LEASEHOLD_PG_BIN";
    private static final Path DEBIAN_ROOT = Path.of("/usr/lib/postgresql");

    private PostgresBinaries() {
    }

    /**
     * The directory holding {@code initdb} and {@code postgres}.
     *
     * @throws IllegalStateException if none is found, or {@code LEASEHOLD_PG_BIN} names a directory without them
     */
    static Path locate() {
        String configured = System.getenv(ENV);
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured);
            if (!hasServer(dir)) {
                throw new IllegalStateException(ENV + "=" + configured
                        + " does not hold executable initdb and postgres programs");
            }
            return dir;
        }
        return debian().or(PostgresBinaries::onPath).orElseThrow(() -> new IllegalStateException(
                "no PostgreSQL server found: install Debian's postgresql package (apt-get install postgresql), "
                        + "or set " + ENV + " to the directory holding initdb and postgres"));
    }

    private static Optional<Path> debian() {
        if (!Files.isDirectory(DEBIAN_ROOT)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(DEBIAN_ROOT)) {
            return versions.filter(v -> v.getFileName().toString().matches("\\d+"))
                    .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString())))
                    .map(v -> v.resolve("bin"))
                    .filter(PostgresBinaries::hasServer);
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<Path> onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        return Stream.of(path.split(java.io.File.pathSeparator))
                .filter(entry -> !entry.isEmpty())
                .map(Path::of)
                .filter(PostgresBinaries::hasServer)
                .findFirst();
    }

    private static boolean hasServer(Path dir) {
        return Files.isExecutable(dir.resolve("initdb")) && Files.isExecutable(dir.resolve("postgres"));
    }
}
