package dev.leasehold.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Configures and starts a {@link RedisServer}; get one from {@link RedisServer#builder()}.
 *
 * <p>Every server binds 127.0.0.1 only, runs in the foreground as a child of this JVM, works
 * in a fresh temporary directory holding its data files and {@code redis.log}, and takes no
 * RDB snapshots (durability tests use {@link #appendOnly} or {@link #appendFsyncAlways}).
 * Not thread-safe.
 */
public final class RedisServerBuilder {

    private RedisBinary binary;
    private int port;
    private boolean appendOnly;
    private boolean fsyncAlways;
    private String requirePass;
    private final Map<String, String> aclUsers = new LinkedHashMap<>();
    private TlsMaterial tls;
    private final List<String> extraArgs = new ArrayList<>();
    private String configFile;
    private final Map<String, String> environment = new LinkedHashMap<>();

    RedisServerBuilder() {
    }

    /** Uses this executable instead of {@link RedisBinary#locate()}, e.g. {@code RedisBinary.embedded().path()}. */
    public RedisServerBuilder binary(Path redisServer) {
        this.binary = RedisBinary.of(Objects.requireNonNull(redisServer, "redisServer"));
        return this;
    }

    /**
     * Listens on {@code port} rather than on a {@linkplain FreePorts free port}; {@link #start()}
     * fails if it is taken.
     *
     * @throws IllegalArgumentException if {@code port} is not in 1..65535
     */
    public RedisServerBuilder port(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be between 1 and 65535, was " + port);
        }
        this.port = port;
        return this;
    }

    /** Turns the append-only file on ({@code appendfsync everysec}) or off (the default; also undoes {@link #appendFsyncAlways()}). */
    public RedisServerBuilder appendOnly(boolean on) {
        this.appendOnly = on;
        this.fsyncAlways = fsyncAlways && on;
        return this;
    }

    /** Turns the append-only file on with {@code appendfsync always}: an acknowledged write survives a SIGKILL. */
    public RedisServerBuilder appendFsyncAlways() {
        this.appendOnly = true;
        this.fsyncAlways = true;
        return this;
    }

    /**
     * Requires {@code password} for the default user; {@link RedisServer#command} authenticates with it.
     *
     * @throws IllegalArgumentException if {@code password} is empty
     */
    public RedisServerBuilder requirePass(String password) {
        this.requirePass = requireNonEmpty(password, "password");
        TestSecrets.record(password);
        return this;
    }

    /**
     * Adds an ACL user with every permission ({@code on >password ~* &* +@all}); may be called
     * once per user. Unless {@link #requirePass} is also set, the default user is switched
     * off, so every connection must authenticate as a configured user; without that the
     * server would still accept anyone and an authentication test would prove nothing.
     * {@link RedisServer#command} authenticates as the first user added.
     *
     * @throws IllegalArgumentException if {@code user} is empty or contains whitespace, or {@code password} is empty
     */
    public RedisServerBuilder aclUser(String user, String password) {
        if (requireNonEmpty(user, "user").chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("user must not contain whitespace, was '" + user + "'");
        }
        aclUsers.put(user, requireNonEmpty(password, "password"));
        TestSecrets.record(password);
        return this;
    }

    /**
     * Serves TLS only: the port speaks TLS with {@code material}'s server certificate, plain
     * TCP is off, and clients need no certificate.
     */
    public RedisServerBuilder tls(TlsMaterial material) {
        this.tls = Objects.requireNonNull(material, "material");
        return this;
    }

    /**
     * Appends raw {@code redis-server} arguments, e.g. {@code arg("--maxmemory", "10mb")}. They
     * come last, so they override what the builder sets (e.g. {@code arg("--save", "60 1")}).
     */
    public RedisServerBuilder arg(String... extra) {
        for (String arg : extra) {
            extraArgs.add(Objects.requireNonNull(arg, "arg"));
        }
        return this;
    }

    /**
     * Sets an environment variable of the server process (and of its restarts), e.g.
     * {@code LD_PRELOAD} and {@code FAKETIME} for a clock that runs behind (libfaketime; Debian's
     * {@code redis-server} hangs under it, the {@link RedisBinary#embedded()} one works).
     */
    public RedisServerBuilder env(String name, String value) {
        environment.put(requireNonEmpty(name, "name"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * Writes {@code text} to {@code redis.conf} in the server's directory and passes that file as
     * the first argument, before every option (which still override it). A Sentinel needs this:
     * it refuses to start without a configuration file, which it rewrites as it learns.
     */
    public RedisServerBuilder configFile(String text) {
        this.configFile = Objects.requireNonNull(text, "text");
        return this;
    }

    /**
     * Starts the server and waits (up to 10 s) until it answers PING, over TLS when configured.
     *
     * @throws IllegalStateException if no binary is found, TLS is asked of a binary without it,
     *     or the server exits or stays silent; the message carries the tail of its log
     * @throws UncheckedIOException if the temporary directory cannot be created
     */
    public RedisServer start() {
        RedisBinary bin = binary != null ? binary : RedisBinary.locate();
        if (tls != null && !bin.supportsTls()) {
            throw new IllegalStateException(bin.path() + " (Redis " + bin.version() + ") was built without TLS; "
                    + "use a redis-server built with TLS, e.g. via " + RedisBinary.ENV_VAR);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("leasehold-redis-");
            if (configFile != null) {
                Files.writeString(dir.resolve(RedisLauncher.CONFIG_FILE), configFile);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for redis-server", e);
        }
        return RedisServer.start(bin, port, dir, options(dir), tls, credentials(), environment);
    }

    /** Everything but the port options, which depend on the port finally used. */
    private List<String> options(Path dir) {
        List<String> options = new ArrayList<>(List.of(
                "--bind", RedisLauncher.HOST,
                "--daemonize", "no",
                "--dir", dir.toString(),
                "--logfile", dir.resolve(RedisLauncher.LOG_FILE).toString(),
                "--save", ""));
        if (requirePass == null && aclUsers.isEmpty()) {
            options.addAll(List.of("--protected-mode", "no"));
        }
        if (appendOnly) {
            options.addAll(List.of("--appendonly", "yes", "--appendfsync", fsyncAlways ? "always" : "everysec"));
        }
        if (requirePass != null) {
            options.addAll(List.of("--requirepass", requirePass));
        } else if (!aclUsers.isEmpty()) {
            options.addAll(List.of("--user", "default", "off"));
        }
        aclUsers.forEach((user, password) ->
                options.addAll(List.of("--user", user, "on", ">" + password, "~*", "&*", "+@all")));
        if (tls != null) {
            options.addAll(List.of(
                    "--tls-cert-file", tls.serverCert().toString(),
                    "--tls-key-file", tls.serverKey().toString(),
                    "--tls-ca-cert-file", tls.caCert().toString(),
                    "--tls-auth-clients", "no"));
        }
        options.addAll(extraArgs);
        return options;
    }

    private Credentials credentials() {
        if (requirePass != null) {
            return new Credentials(null, requirePass);
        }
        return aclUsers.entrySet().stream()
                .findFirst()
                .map(user -> new Credentials(user.getKey(), user.getValue()))
                .orElse(null);
    }

    private static String requireNonEmpty(String value, String name) {
        if (Objects.requireNonNull(value, name).isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
        return value;
    }
}
