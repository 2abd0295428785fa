package dev.leasehold.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server (Debian's {@code postgresql} package, see {@link #start()}) on a free
 * 127.0.0.1 port, with its data in a fresh temporary directory, which a test can freeze, kill,
 * stop and restart. Close it in a try-with-resources block or {@code @AfterAll}.
 *
 * <p>{@link #pause()} freezes the postmaster and every backend it forked, and {@link #kill()} and
 * {@link #close()} leave no backend behind. When this JVM runs as root, the server runs as the
 * {@code postgres} user (PostgreSQL refuses to run as root). It has one superuser, {@link #user()},
 * who logs in over TCP with {@link #password()} (SCRAM); there is no Unix socket. Commits are
 * synchronous but never flushed to disk ({@code fsync=off}): a killed server loses nothing (its
 * writes are in the kernel's page cache), only a crash of the machine would.
 *
 * <p>A server that is not closed is still killed, and its directory deleted, when the JVM exits.
 * Lifecycle methods are meant to be called from one thread at a time.
 */
public final class PostgresServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresServer.class);
    private static final String HOST = "127.0.0.1";
    private static final String USER = "leasehold";
    private static final String DATABASE = "postgres";
    private static final String READY = "database system is ready to accept connections";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final int PORT_ATTEMPTS = 3;

    /** Servers not yet closed, killed whole by a shutdown hook: the JVM-wide reaper kills only the postmaster, and frozen backends would outlive it. */
    private static final OpenAtExit<PostgresServer> OPEN = new OpenAtExit<>("leasehold-postgres-reaper",
            PostgresServer::killAtExit);

    private final Path bin;
    private final Path dir;
    private final String password;
    private final int port;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Process process;
    private volatile List<ProcessHandle> frozen = List.of();

    private PostgresServer(Path bin, Path dir, String password, int port) {
        this.bin = bin;
        this.dir = dir;
        this.password = password;
        this.port = port;
    }

    /**
     * Creates a database cluster in a new temporary directory ({@code initdb}) and starts a server on
     * it, on a free port; returns once it accepts connections.
     *
     * @throws IllegalStateException if no PostgreSQL is installed (the message says what to install),
     *     the JVM runs as root and there is no {@code postgres} user, or the server does not start
     *     within 30 s (the message carries the end of its log)
     */
    public static PostgresServer start() {
        Path bin = PostgresBinaries.locate();
        Path dir = Directories.createRegistered("leasehold-pg-", "PostgreSQL");
        try {
            String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
            TestSecrets.record(password);
            initdb(bin, dir, password);
            for (int attempt = 1; ; attempt++) {
                PostgresServer server = new PostgresServer(bin, dir, password, FreePorts.find());
                try {
                    server.launch();
                    OPEN.add(server);
                    return server;
                } catch (IllegalStateException e) {
                    if (attempt == PORT_ATTEMPTS || !server.logTail(20).contains("could not bind")) {
                        throw e;
                    }
                }
            }
        } catch (RuntimeException e) {
            Directories.deleteRegistered(dir, "PostgreSQL");
            throw e;
        }
    }

    /** Always {@code "127.0.0.1"}. */
    public String host() {
        return HOST;
    }

    /** The port, which stays the same across {@link #restart()}. */
    public int port() {
        return port;
    }

    /** {@code jdbc:postgresql://127.0.0.1:PORT/postgres}, without credentials. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + HOST + ":" + port + "/" + DATABASE;
    }

    /** The superuser's name. */
    public String user() {
        return USER;
    }

    /** The superuser's password, random per server. */
    public String password() {
        return password;
    }

    /** The pid of the postmaster; changes on {@link #restart()}. */
    public long pid() {
        return process.pid();
    }

    /** Whether the postmaster is running (a paused one is). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Freezes the postmaster and every backend with SIGSTOP: connections stay open, nothing is
     * answered. Returns once all are stopped.
     *
     * @throws IllegalStateException if the server is not running or cannot be stopped
     */
    public void pause() {
        requireAlive("pause");
        frozen = ProcessTree.stop(process.toHandle());
    }

    /**
     * Resumes a paused server with SIGCONT; harmless on a running one.
     *
     * @throws IllegalStateException if the server is not running or the signal fails
     */
    public void resume() {
        requireAlive("resume");
        ProcessTree.cont(frozen);
        frozen = List.of();
    }

    /**
     * Kills the postmaster and every backend with SIGKILL (a crash) and waits until all are gone;
     * does nothing if nothing runs. Works on a paused server too.
     *
     * @throws IllegalStateException if a process survives 10 s (an interrupt does not cut the wait short)
     */
    public void kill() {
        // On an interrupted thread each kill(1) it runs would fail: the root, left unfrozen, could fork.
        Uninterruptibly.run(() -> {
            Process current = process;
            ProcessTree.killAndWait(current.toHandle(), frozen, EXIT_TIMEOUT);
            awaitExit(current);
            frozen = List.of();
        });
    }

    /**
     * Stops the server gracefully (SIGINT: the fast shutdown, which ends open sessions), resuming it
     * first if paused; waits for every process of it to exit. Does nothing if it is not running.
     *
     * @throws IllegalStateException if it does not exit within 10 s (it is then killed); an interrupt does
     *     not cut the wait short, nor turn the stop into a kill
     */
    public void stop() {
        Process current = process;
        if (!current.isAlive()) {
            return;
        }
        Uninterruptibly.run(() -> {
            if (!frozen.isEmpty()) {
                resume();
            }
            try {
                ProcessTree.send("INT", List.of(current.toHandle()));
                awaitExit(current);
            } finally {
                kill();
            }
        });
    }

    /**
     * Starts the server again on the same port and data after {@link #kill()} or {@link #stop()}
     * (after a kill, PostgreSQL recovers from its log first); returns once it accepts connections.
     *
     * @throws IllegalStateException if the server is closed or still running, or does not start within 30 s
     */
    public void restart() {
        if (closed.get()) {
            throw new IllegalStateException("cannot restart a closed PostgreSQL server");
        }
        if (isAlive()) {
            throw new IllegalStateException("PostgreSQL on port " + port + " is still running; call kill() or stop() first");
        }
        launch();
    }

    /**
     * Kills the server (every process of it) and deletes its directory; idempotent. A directory that
     * cannot be deleted is logged, not thrown.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            kill(); // runs to its end on an interrupted thread too
        } finally {
            OPEN.remove(this);
            Directories.deleteRegistered(dir, "PostgreSQL");
        }
    }

    private void killAtExit() {
        ProcessTree.killAndWait(process.toHandle(), frozen, EXIT_TIMEOUT);
    }

    /**
     * The last {@code lines} lines of the server's log, or {@code ""} when there is none.
     *
     * @throws UncheckedIOException if the log exists but cannot be read
     */
    public String logTail(int lines) {
        Path log = log();
        if (!Files.exists(log)) {
            return "";
        }
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log, e);
        }
    }

    @Override
    public String toString() {
        return "PostgresServer[" + jdbcUrl() + "]";
    }

    private static void initdb(Path bin, Path dir, String password) {
        Path pwfile = dir.resolve("pwfile");
        try {
            Files.writeString(pwfile, password + "\n", StandardCharsets.UTF_8);
            ServerUser.own(dir, pwfile);
            List<String> command = ServerUser.wrap(List.of(bin.resolve("initdb").toString(), "-D", data(dir).toString(),
                    "-U", USER, "--pwfile=" + pwfile, "--auth-host=scram-sha-256", "--auth-local=reject",
                    "--no-sync", "--encoding=UTF8", "--locale=C.UTF-8"));
            Exec.Result result = Exec.run(START_TIMEOUT, command.toArray(String[]::new));
            if (!result.succeeded()) {
                throw new IllegalStateException("initdb failed (exit code " + result.exitCode() + "): " + result.output().strip());
            }
        } catch (java.nio.file.attribute.UserPrincipalNotFoundException e) {
            throw new IllegalStateException("running as root, PostgreSQL must run as the 'postgres' user, which does not exist: "
                    + "install Debian's postgresql package, or run the tests as an ordinary user", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run initdb in " + dir, e);
        } finally {
            try {
                Files.deleteIfExists(pwfile);
            } catch (IOException e) {
                LOG.warn("could not delete {}", pwfile, e);
            }
        }
    }

    private void launch() {
        Path log = log();
        long offset;
        try {
            offset = Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log, e);
        }
        List<String> command = new ArrayList<>(ServerUser.wrap(List.of(bin.resolve("postgres").toString(), "-D", data(dir).toString(),
                "-p", Integer.toString(port), "-c", "listen_addresses=" + HOST, "-c", "unix_socket_directories=",
                "-c", "fsync=off", "-c", "full_page_writes=off",
                "-c", "max_connections=200")));
        try {
            Process started = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            ShutdownReaper.register(started);
            process = started;
            frozen = List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        awaitReady(log, offset);
    }

    private void awaitReady(Path log, long offset) {
        StartWait.untilReady(process, START_TIMEOUT, () -> logSince(log, offset).contains(READY), why -> {
            kill();
            return new IllegalStateException("PostgreSQL on port " + port + " " + why + "; log:\n" + logTail(20));
        });
    }

    private static String logSince(Path log, long offset) {
        try {
            byte[] bytes = Files.readAllBytes(log);
            return new String(bytes, (int) Math.min(offset, bytes.length), (int) Math.max(0, bytes.length - offset),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static void awaitExit(Process target) {
        Uninterruptibly.awaitExit(target, EXIT_TIMEOUT, "PostgreSQL");
    }

    private static Path data(Path dir) {
        return dir.resolve("data");
    }

    private Path log() {
        return dir.resolve("postgres.log");
    }

    private void requireAlive(String action) {
        if (!isAlive()) {
            throw new IllegalStateException("cannot " + action + " PostgreSQL on port " + port + ": it is not running");
        }
    }
}
