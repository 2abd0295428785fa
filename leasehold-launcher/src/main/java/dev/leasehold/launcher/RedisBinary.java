package dev.leasehold.launcher;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code redis-server} executable, and what it can do.
 *
 * <p>{@link #locate()} looks, in order, at the {@value #ENV_VAR} environment variable, at
 * {@code redis-server} on the {@code PATH}, and at the binaries shipped inside the
 * {@code com.github.codemonstur:embedded-redis} jar ({@link #embedded()}). Results are cached
 * per JVM: the binary is looked up and extracted once, and {@link #version()} and
 * {@link #supportsTls()} run their probe once per executable path.
 */
public final class RedisBinary {

    /** Environment variable naming the {@code redis-server} to use, overriding the {@code PATH}. */
    public static final String ENV_VAR = "LEASEHOLD_REDIS_SERVER";

    private static final String EXECUTABLE = "redis-server";
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");
    private static final Map<Path, RedisBinary> BY_PATH = new ConcurrentHashMap<>();
    private static final String HOW_TO_FIX = "install redis-server (e.g. apt-get install redis-server) or set "
            + ENV_VAR + " to the path of a redis-server executable";

    private static RedisBinary located;
    private static RedisBinary embedded;

    private final Path path;
    private String version;
    private Boolean tls;

    private RedisBinary(Path path) {
        this.path = path;
    }

    /**
     * Returns the binary tests should use: {@value #ENV_VAR} if set, else {@code redis-server}
     * on the {@code PATH}, else the one embedded-redis ships for this platform.
     *
     * @throws IllegalStateException if {@value #ENV_VAR} names no executable file, or no binary is
     *     found at all; the message says how to fix it
     */
    public static synchronized RedisBinary locate() {
        if (located == null) {
            located = resolve(System.getenv(ENV_VAR), System.getenv("PATH"), RedisBinary::embedded);
        }
        return located;
    }

    /**
     * Returns the {@code redis-server} shipped in the embedded-redis jar for this OS and
     * architecture, extracted once per JVM into a temporary file deleted at exit.
     *
     * @throws IllegalStateException if the jar is not on the classpath or ships no binary for this platform
     * @throws UncheckedIOException if extraction fails
     */
    public static synchronized RedisBinary embedded() {
        if (embedded == null) {
            embedded = embedded(System.getProperty("os.name"), System.getProperty("os.arch"));
        }
        return embedded;
    }

    /** Returns the binary at {@code path}; instances are shared, so probes run once per path. */
    public static RedisBinary of(Path path) {
        return BY_PATH.computeIfAbsent(path.toAbsolutePath(), RedisBinary::new);
    }

    static RedisBinary resolve(String override, String pathVariable, Supplier<RedisBinary> fallback) {
        if (override != null && !override.isBlank()) {
            Path path = Path.of(override);
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new IllegalStateException(ENV_VAR + "=" + override
                        + " is not an executable file; point it at a redis-server binary or unset it");
            }
            return of(path);
        }
        Optional<Path> onPath = findOnPath(pathVariable);
        if (onPath.isPresent()) {
            return of(onPath.get());
        }
        try {
            return fallback.get();
        } catch (IllegalStateException e) {
            throw new IllegalStateException("No redis-server found: " + ENV_VAR + " is not set, there is no "
                    + EXECUTABLE + " on the PATH, and " + e.getMessage(), e);
        }
    }

    static RedisBinary embedded(String osName, String osArch) {
        String resource = embeddedResource(osName, osArch);
        if (resource == null || RedisBinary.class.getClassLoader().getResource(resource) == null) {
            throw new IllegalStateException("the embedded-redis jar on the classpath has no redis-server for "
                    + osName + "/" + osArch + "; " + HOW_TO_FIX);
        }
        return of(extract(resource));
    }

    /** The file that runs; for a {@code PATH} hit, the name as found there, symbolic links not followed. */
    public Path path() {
        return path;
    }

    /**
     * Returns the version the binary reports, e.g. {@code "7.0.15"}.
     *
     * @throws IllegalStateException if {@code --version} fails or prints no {@code v=X.Y.Z}
     */
    public synchronized String version() {
        if (version == null) {
            Exec.Result result = run("--version");
            Matcher matcher = VERSION.matcher(result.output());
            if (!result.succeeded() || !matcher.find()) {
                throw new IllegalStateException(path + " --version did not report a version: " + result.output().strip());
            }
            version = matcher.group(1) + "." + matcher.group(2) + "." + matcher.group(3);
        }
        return version;
    }

    /**
     * Whether the binary was built with TLS (Redis 6 or later, built with OpenSSL).
     *
     * @throws IllegalStateException if the version cannot be read
     */
    public synchronized boolean supportsTls() {
        if (tls == null) {
            tls = majorVersion() >= 6 && probeTls();
        }
        return tls;
    }

    @Override
    public String toString() {
        return "RedisBinary[" + path + "]";
    }

    private int majorVersion() {
        return Integer.parseInt(version().substring(0, version().indexOf('.')));
    }

    /**
     * A TLS build given a TLS port but no certificate refuses to start and names the missing
     * {@code tls-cert-file}; a build without TLS rejects the option (or, at worst, runs and is
     * killed at the probe timeout). It fails before binding anything, and plain TCP is off.
     */
    private boolean probeTls() {
        Exec.Result result = run("--port", "0", "--tls-port", Integer.toString(FreePorts.find()),
                "--save", "", "--appendonly", "no", "--logfile", "", "--dir", System.getProperty("java.io.tmpdir"));
        return result.output().contains("tls-cert-file");
    }

    private Exec.Result run(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = path.toString();
        System.arraycopy(args, 0, command, 1, args.length);
        try {
            return Exec.run(PROBE_TIMEOUT, command);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + path, e);
        }
    }

    /**
     * Keeps the {@code PATH} entry's own name: Debian installs {@code redis-server} as a
     * symbolic link to {@code redis-check-rdb}, and the binary picks its mode from argv[0].
     */
    private static Optional<Path> findOnPath(String pathVariable) {
        if (pathVariable == null) {
            return Optional.empty();
        }
        for (String dir : pathVariable.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, EXECUTABLE);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    private static String embeddedResource(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        boolean x64 = osArch.equals("amd64") || osArch.equals("x86_64");
        boolean arm64 = osArch.equals("arm64") || osArch.equals("aarch64");
        if (os.contains("linux")) {
            return x64 ? "redis-server-6.2.6-v5-linux-amd64" : arm64 ? "redis-server-6.2.7-linux-arm64" : null;
        }
        if (os.contains("mac")) {
            return x64 ? "redis-server-6.2.6-v5-darwin-amd64" : arm64 ? "redis-server-6.2.6-v5-darwin-arm64" : null;
        }
        return null;
    }

    private static Path extract(String resource) {
        try {
            Path dir = Files.createTempDirectory("leasehold-redis-bin-");
            // The resource's own name keeps "redis-server" in argv[0] (see findOnPath).
            Path target = dir.resolve(resource);
            // Registered before the file: deleteOnExit runs in reverse order, so the file goes first.
            dir.toFile().deleteOnExit();
            target.toFile().deleteOnExit();
            try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
                Files.copy(in, target);
            }
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract " + resource + " from the embedded-redis jar", e);
        }
    }
}
