package dev.leasehold.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts {@code redis-server} processes for one server's configuration and port, waits until
 * they serve, and ends them. Immutable; {@link RedisServer} keeps the process it got.
 */
final class RedisLauncher {

    static final String HOST = "127.0.0.1";
    static final String LOG_FILE = "redis.log";
    /** A configuration file in the server's directory, passed first when present (a Sentinel needs one it can rewrite). */
    static final String CONFIG_FILE = "redis.conf";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int FAILURE_LOG_LINES = 30;
    private static final Pattern PROCESS_ID = Pattern.compile("process_id:(\\d+)");

    private final RedisBinary binary;
    private final int port;
    private final Path dir;
    private final List<String> options;
    private final TlsMaterial tls;
    private final Credentials credentials;
    private final Map<String, String> environment;

    /**
     * @param options every argument but the port ones
     * @param tls the server's TLS material, or {@code null} for plain TCP
     * @param credentials what to AUTH with, or {@code null}
     * @param environment variables set for the process, on top of this JVM's
     */
    RedisLauncher(RedisBinary binary, int port, Path dir, List<String> options, TlsMaterial tls,
            Credentials credentials, Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
        this.binary = binary;
        this.port = port;
        this.dir = dir;
        this.options = List.copyOf(options);
        this.tls = tls;
        this.credentials = credentials;
    }

    int port() {
        return port;
    }

    Path dir() {
        return dir;
    }

    boolean tls() {
        return tls != null;
    }

    /**
     * Starts a process and returns it once it answers PING. A bind failure is retried on the
     * same port until {@code portBusyPatience} has passed.
     *
     * @throws PortInUseException if the port stayed taken
     * @throws IllegalStateException if the process exits or stays silent for 10 s
     */
    Process launch(Duration portBusyPatience) {
        long giveUp = System.nanoTime() + portBusyPatience.toNanos();
        while (true) {
            Process candidate = spawn();
            try {
                awaitReady(candidate);
                return candidate;
            } catch (PortInUseException e) {
                if (System.nanoTime() > giveUp) {
                    throw e;
                }
                LockSupport.parkNanos(POLL_NANOS);
            }
        }
    }

    /** Opens a connection to the server, authenticated when it needs a password. */
    RespClient connect() {
        RespClient client = RespClient.connect(HOST, port, tls == null ? null : tls.sslContext());
        if (credentials != null) {
            try {
                client.call(credentials.authCommand());
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
        }
        return client;
    }

    /** See {@link RedisServer#logTail(int)}. */
    String logTail(int lines) {
        if (lines < 0) {
            throw new IllegalArgumentException("lines must be >= 0, was " + lines);
        }
        String log;
        try {
            log = new String(Files.readAllBytes(dir.resolve(LOG_FILE)), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dir.resolve(LOG_FILE), e);
        }
        List<String> all = log.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /** SIGKILL through the JDK, which never signals a child it has already reaped (a recycled pid). */
    static void killAndWait(Process target) {
        target.destroyForcibly();
        awaitExit(target);
    }

    /**
     * Waits until {@code target} exits, then stops tracking it for the shutdown hook. An interrupt
     * does not end the wait early (the flag is kept): the caller is usually a close.
     *
     * @throws IllegalStateException if it does not exit within 10 s
     */
    static void awaitExit(Process target) {
        Uninterruptibly.awaitExit(target, EXIT_TIMEOUT, "redis-server");
    }

    private Process spawn() {
        List<String> argv = new ArrayList<>();
        argv.add(binary.path().toString());
        if (Files.exists(dir.resolve(CONFIG_FILE))) {
            argv.add(dir.resolve(CONFIG_FILE).toString());
        }
        if (tls == null) {
            argv.addAll(List.of("--port", Integer.toString(port)));
        } else {
            argv.addAll(List.of("--port", "0", "--tls-port", Integer.toString(port)));
        }
        argv.addAll(options);
        try {
            // Startup errors printed before the log file is open land in the same file;
            // both writers append, so their lines interleave rather than overwrite.
            ProcessBuilder builder = new ProcessBuilder(argv);
            builder.environment().putAll(environment);
            Process started = builder
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(Redirect.appendTo(dir.resolve(LOG_FILE).toFile()))
                    .start();
            ShutdownReaper.register(started);
            started.getOutputStream().close();
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + String.join(" ", argv), e);
        }
    }

    /**
     * Waits until the port answers PING and the answering server is this process: if the port
     * was taken, another server may answer while ours is failing to bind.
     */
    private void awaitReady(Process candidate) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        RuntimeException lastFailure = null;
        while (true) {
            if (!candidate.isAlive()) {
                ShutdownReaper.unregister(candidate);
                String tail = logTail(FAILURE_LOG_LINES);
                String message = "redis-server exited with code " + candidate.exitValue() + " while starting on port "
                        + port + "; " + binary + ", log " + dir.resolve(LOG_FILE) + " ends with:\n" + tail;
                throw tail.contains("Address already in use")
                        ? new PortInUseException(message)
                        : new IllegalStateException(message);
            }
            try (RespClient client = connect()) {
                if ("PONG".equals(client.call("PING"))) {
                    long answering = answeringPid(client);
                    if (answering == candidate.pid()) {
                        return;
                    }
                    killAndWait(candidate);
                    throw new PortInUseException("port " + port + " is served by another redis-server (pid "
                            + answering + ")");
                }
            } catch (UncheckedIOException | RedisReplyException e) {
                lastFailure = e; // not listening yet, or LOADING its data
            }
            if (System.nanoTime() > deadline) {
                killAndWait(candidate);
                throw new IllegalStateException("redis-server did not answer PING on port " + port + " within "
                        + START_TIMEOUT + "; log " + dir.resolve(LOG_FILE) + " ends with:\n"
                        + logTail(FAILURE_LOG_LINES), lastFailure);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    private static long answeringPid(RespClient client) {
        Object info = client.call("INFO", "server");
        Matcher matcher = PROCESS_ID.matcher(String.valueOf(info));
        return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
    }

    /** The port was taken; worth retrying later or on another port. */
    static final class PortInUseException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortInUseException(String message) {
            super(message);
        }
    }
}
