package dev.leasehold.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A class-data-sharing archive for the {@code leasehold} processes one test JVM starts: most of a
 * short command's time is spent loading and verifying the same few thousand classes (Lettuce,
 * Netty, gRPC, picocli), which a JVM maps from an archive in a fraction of it (about 1.5 s down to
 * 0.9 s for an {@code inspect} on this machine).
 *
 * <p>The first launch records the classes it loads; a background JVM then writes them to the
 * archive, and launches from then on map it. Only the jars go in: JDK 17 archives nothing from a
 * non-empty directory, so the class path given to every launch has its jars first and the
 * build's class directories after them, which an archive of the jars alone still matches. A
 * launch that finds no usable archive starts as it would without one: the archive only saves time.
 */
final class ClassDataSharing {

    /** A broken archive is not retried for ever: after this many attempts launches go without one. */
    private static final int MAX_ATTEMPTS = 3;

    private final Path directory;
    private final String classPath;
    private final String jars;
    private final AtomicInteger attempts = new AtomicInteger();
    /** Whether a launch is recording or the archive is being written, so that only one does. */
    private final AtomicBoolean busy = new AtomicBoolean();

    ClassDataSharing(Path directory, String classPath) {
        this.directory = directory.toAbsolutePath();
        List<String> jarEntries = new ArrayList<>();
        List<String> directories = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            (Files.isDirectory(Path.of(entry)) ? directories : jarEntries).add(entry);
        }
        this.jars = String.join(File.pathSeparator, jarEntries);
        jarEntries.addAll(directories);
        this.classPath = String.join(File.pathSeparator, jarEntries);
    }

    /** The class path for every launch: the same entries, jars first. */
    String classPath() {
        return classPath;
    }

    /**
     * The JVM options for the next launch: the archive once written; for one launch the option
     * that records its classes; otherwise none. Pass what this returns to {@link #launched}.
     */
    Launch nextLaunch() {
        Path archive = archive();
        if (Files.exists(archive)) {
            return new Launch(List.of("-XX:SharedArchiveFile=" + archive), null);
        }
        if (attempts.get() < MAX_ATTEMPTS && busy.compareAndSet(false, true)) {
            attempts.incrementAndGet();
            Path classList = directory.resolve("leasehold-" + ProcessHandle.current().pid() + ".classes");
            return new Launch(List.of("-XX:DumpLoadedClassList=" + classList), classList);
        }
        return new Launch(List.of(), null);
    }

    /** Once a recording launch exits, writes the archive from its class list in the background. */
    void launched(Launch launch, Process process) {
        if (launch.classList() == null) {
            return;
        }
        process.onExit().thenRunAsync(() -> {
            try {
                writeArchive(launch.classList());
            } finally {
                busy.set(false);
            }
        });
    }

    private void writeArchive(Path classList) {
        Path archive = archive();
        Path writing = archive.resolveSibling(archive.getFileName() + ".part");
        try {
            Process dump = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xshare:dump", "-XX:+UseSerialGC", "-XX:SharedClassListFile=" + classList,
                    "-XX:SharedArchiveFile=" + writing, "-cp", jars)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (dump.waitFor(60, TimeUnit.SECONDS) && dump.exitValue() == 0 && Files.exists(writing)) {
                archive.toFile().deleteOnExit();
                Files.move(writing, archive, StandardCopyOption.ATOMIC_MOVE);
            } else {
                dump.destroyForcibly();
            }
        } catch (IOException e) {
            // No archive this time: the next launch records again, up to MAX_ATTEMPTS.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            deleteQuietly(writing);
            deleteQuietly(classList);
        }
    }

    private Path archive() {
        return directory.resolve("leasehold-" + ProcessHandle.current().pid() + ".jsa");
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // A leftover file in target/ is harmless.
        }
    }

    /** The JVM options of one launch, and the class list it records, if it is the recording one. */
    record Launch(List<String> options, Path classList) {
    }
}
