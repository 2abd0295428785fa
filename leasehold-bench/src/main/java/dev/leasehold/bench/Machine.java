package dev.leasehold.bench;

import io.netty.util.Version;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;

/**
 * What the figures were measured on: the machine, the JDK, the server and every library version.
 *
 * @param cpus          processors available to the JVM ({@code nproc})
 * @param cpuModel      from {@code /proc/cpuinfo}
 * @param memory        total RAM, from {@code /proc/meminfo}
 * @param jdk           runtime name and version
 * @param os            name, version and architecture
 * @param redisVersion  of the redis-server the testkit started
 * @param libraries     name to version, as built (Maven resource filtering)
 * @param nettyRuntime  the Netty versions actually loaded, which shows the pin held
 * @param revision      the Git commit of the measured modules, and whether they had local changes
 * @param date          when the run started
 */
record Machine(int cpus, String cpuModel, String memory, String jdk, String os, String redisVersion,
               Map<String, String> libraries, String nettyRuntime, String revision, String date) {

    /** The modules whose code the figures describe. */
    private static final List<String> MEASURED = List.of("leasehold-core", "leasehold-redis", "leasehold-redlock");

    static Machine describe(String redisVersion) {
        return new Machine(Runtime.getRuntime().availableProcessors(),
                procField("/proc/cpuinfo", "model name"),
                readMemory(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                redisVersion,
                readLibraries(),
                loadedNetty(),
                revision(MEASURED),
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    }

    private static String readMemory() {
        String kb = procField("/proc/meminfo", "MemTotal").replace("kB", "").trim();
        try {
            return String.format("%.1f GiB", Long.parseLong(kb) / 1024.0 / 1024.0);
        } catch (NumberFormatException e) {
            return kb;
        }
    }

    private static String procField(String file, String field) {
        try {
            List<String> lines = Files.readAllLines(Path.of(file));
            for (String line : lines) {
                if (line.startsWith(field)) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | UncheckedIOException e) {
            return "unknown (" + file + " unreadable)";
        }
        return "unknown";
    }

    private static Map<String, String> readLibraries() {
        Map<String, String> versions = new LinkedHashMap<>();
        for (String name : List.of("Leasehold", "Redisson", "Lettuce", "Netty", "Reactor", "JMH")) {
            versions.put(name, library(name));
        }
        return versions;
    }

    /** The version of {@code name} (a key of versions.properties, e.g. "ShedLock") this jar was built with, or "unknown". */
    static String library(String name) {
        Properties properties = new Properties();
        try (InputStream in = Machine.class.getResourceAsStream("versions.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read versions.properties", e);
        }
        return properties.getProperty(name, "unknown");
    }

    /**
     * {@code git rev-parse --short HEAD} in the working directory (run.sh runs from the repository
     * root), noting uncommitted changes in the {@code measured} modules: the jar is built from the
     * working tree, so the commit alone may not be what was measured.
     */
    static String revision(List<String> measured) {
        String head = git("rev-parse", "--short", "HEAD");
        if (head.isEmpty()) {
            return "unknown (not run inside the Git repository)";
        }
        List<String> status = new ArrayList<>(List.of("status", "--porcelain", "--untracked-files=no", "--"));
        status.addAll(measured);
        return git(status.toArray(String[]::new)).isEmpty() ? head
                : head + " with uncommitted changes in " + String.join(", ", measured);
    }

    /** {@link #revision} over the modules the Redis benchmarks measure. */
    static String gitRevision() {
        return revision(MEASURED);
    }

    private static String git(String... args) {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.waitFor() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static String loadedNetty() {
        TreeSet<String> versions = new TreeSet<>();
        Version.identify().values().forEach(v -> versions.add(v.artifactVersion()));
        return String.join(", ", versions);
    }
}
