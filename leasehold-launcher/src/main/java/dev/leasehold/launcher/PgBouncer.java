package dev.leasehold.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Debian's PgBouncer ({@code apt-get install pgbouncer}) in <b>transaction pooling</b> in front of a
 * {@link PostgresServer}, on a free 127.0.0.1 port: each transaction of a client may run on another
 * server connection, and session state (session advisory locks, {@code LISTEN}, session {@code SET})
 * is not kept between transactions, as in many production deployments.
 *
 * <p>It serves the server's {@code postgres} database to the server's superuser with the same
 * password (SCRAM). Its configuration and log live in a fresh temporary directory; {@link #close()}
 * kills it and deletes that directory (and a JVM exit does, if it is not closed). When this JVM runs
 * as root, PgBouncer runs as the {@code postgres} user, since it refuses root.
 */
public final class PgBouncer implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final String READY = "process up";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

    private final PostgresServer server;
    private final Path dir;
    private final int port;
    private final Process process;

    private PgBouncer(PostgresServer server, Path dir, int port, Process process) {
        this.server = server;
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /**
     * Starts PgBouncer in transaction pooling in front of {@code server}; returns once it accepts
     * connections.
     *
     * @throws IllegalStateException if PgBouncer is not installed (the message says what to
     *     install) or does not start within 20 s (the message carries the end of its log)
     */
    public static PgBouncer start(PostgresServer server) {
        Path binary = binary();
        Path dir = Directories.createRegistered("leasehold-pgbouncer-", "PgBouncer");
        try {
            int port = FreePorts.find();
            Path config = writeConfig(dir, server, port);
            Process process = new ProcessBuilder(ServerUser.wrap(List.of(binary.toString(), config.toString())))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile()))
                    .start();
            ShutdownReaper.register(process);
            PgBouncer bouncer = new PgBouncer(server, dir, port, process);
            bouncer.awaitReady();
            return bouncer;
        } catch (IOException e) {
            Directories.deleteRegistered(dir, "PgBouncer");
            throw new UncheckedIOException("cannot start PgBouncer in " + dir, e);
        } catch (RuntimeException e) {
            Directories.deleteRegistered(dir, "PgBouncer");
            throw e;
        }
    }

    /** Always {@code "127.0.0.1"}. */
    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    /**
     * {@code jdbc:postgresql://127.0.0.1:PORT/postgres?prepareThreshold=0}, without credentials
     * (use {@link PostgresServer#user()} and {@link PostgresServer#password()}): pgjdbc's named
     * server-side prepared statements do not survive transaction pooling, so they are turned off.
     */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + HOST + ":" + port + "/postgres?prepareThreshold=0";
    }

    /** The server PgBouncer forwards to. */
    public PostgresServer server() {
        return server;
    }

    /** Kills PgBouncer and deletes its directory; idempotent. */
    @Override
    public void close() {
        Uninterruptibly.run(() -> {
            try {
                ProcessTree.killAndWait(process.toHandle(), List.of(), EXIT_TIMEOUT);
                Uninterruptibly.awaitExit(process, EXIT_TIMEOUT, "PgBouncer");
            } finally {
                ShutdownReaper.unregister(process);
                Directories.deleteRegistered(dir, "PgBouncer");
            }
        });
    }

    @Override
    public String toString() {
        return "PgBouncer[" + HOST + ":" + port + " -> " + server + "]";
    }

    private static Path binary() {
        for (Path candidate : List.of(Path.of("/usr/sbin/pgbouncer"), Path.of("/usr/bin/pgbouncer"))) {
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("PgBouncer is not installed: run 'apt-get install -y pgbouncer' (Debian's package)");
    }

    private static Path writeConfig(Path dir, PostgresServer server, int port) throws IOException {
        Path users = dir.resolve("userlist.txt");
        Files.writeString(users, "\"" + server.user() + "\" \"" + server.password() + "\"\n", StandardCharsets.UTF_8);
        Path config = dir.resolve("pgbouncer.ini");
        Files.writeString(config, String.join("\n",
                "[databases]",
                "postgres = host=" + server.host() + " port=" + server.port() + " dbname=postgres",
                "[pgbouncer]",
                "listen_addr = " + HOST,
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = scram-sha-256",
                "auth_file = " + users,
                "pool_mode = transaction",
                "max_client_conn = 200",
                "default_pool_size = 20",
                // pgjdbc sends it at startup; PgBouncer refuses unknown startup parameters otherwise.
                "ignore_startup_parameters = extra_float_digits",
                "logfile = " + dir.resolve("pgbouncer.log"),
                ""), StandardCharsets.UTF_8);
        ServerUser.own(dir, users, config);
        return config;
    }

    private void awaitReady() {
        StartWait.untilReady(process, START_TIMEOUT, () -> log().contains(READY), why -> {
            // read before close(), which deletes the directory the logs are in
            String log = log() + readQuietly(dir.resolve("stdout.log"));
            close();
            return new IllegalStateException("PgBouncer on port " + port + " " + why + "; log:\n" + log);
        });
    }

    private String log() {
        return readQuietly(dir.resolve("pgbouncer.log"));
    }

    private static String readQuietly(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
