package dev.leasehold.launcher;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A real {@code redis-server} child process listening on 127.0.0.1, which a test can kill,
 * freeze, stop and restart. Start one with {@link #builder()}; close it in a
 * try-with-resources block, {@code @AfterEach} or {@code @AfterAll}.
 *
 * <p>A server that is not closed is still killed, and its directory deleted, when the JVM
 * exits. Lifecycle methods are meant to be called from one thread at a time;
 * {@link #command}, {@link #isAlive()} and the accessors may be called from any thread.
 */
public final class RedisServer implements AutoCloseable {

    private static final Duration PORT_BUSY_PATIENCE = Duration.ofSeconds(5);
    private static final int AUTO_PORT_ATTEMPTS = 3;

    private final RedisLauncher launcher;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Process process;
    private volatile boolean paused;

    private RedisServer(RedisLauncher launcher, Process process) {
        this.launcher = launcher;
        this.process = process;
    }

    /** Returns a builder for a server on a free port, with no persistence, password or TLS. */
    public static RedisServerBuilder builder() {
        return new RedisServerBuilder();
    }

    /**
     * A port picked here was only free a moment ago, so a bind failure on it is retried on a
     * fresh port; a port the caller chose fails at once, as nothing suggests it frees up soon.
     */
    static RedisServer start(RedisBinary binary, int requestedPort, Path dir, List<String> options,
            TlsMaterial tls, Credentials credentials, Map<String, String> environment) {
        ShutdownReaper.register(dir);
        try {
            for (int attempt = 1; ; attempt++) {
                int port = requestedPort != 0 ? requestedPort : FreePorts.find();
                RedisLauncher launcher = new RedisLauncher(binary, port, dir, options, tls, credentials, environment);
                try {
                    return new RedisServer(launcher, launcher.launch(Duration.ZERO));
                } catch (RedisLauncher.PortInUseException e) {
                    if (requestedPort != 0 || attempt == AUTO_PORT_ATTEMPTS) {
                        throw e;
                    }
                }
            }
        } catch (RuntimeException e) {
            Directories.deleteRegistered(dir, "redis-server");
            throw e;
        }
    }

    /** Always {@code "127.0.0.1"}. */
    public String host() {
        return RedisLauncher.HOST;
    }

    /** The port, which stays the same across {@link #restart()}. */
    public int port() {
        return launcher.port();
    }

    /** The pid of the current process; changes on {@link #restart()}. */
    public long pid() {
        return process.pid();
    }

    /** {@code redis://127.0.0.1:PORT}, or {@code rediss://} when serving TLS; never carries credentials. */
    public String uri() {
        return (launcher.tls() ? "rediss://" : "redis://") + RedisLauncher.HOST + ":" + port();
    }

    /** The working directory: data files and {@code redis.log}; deleted by {@link #close()}. */
    public Path dir() {
        return launcher.dir();
    }

    /** Whether the current process is running (a paused process is alive). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Whether {@link #pause()} froze the process and nothing resumed or ended it since. */
    public boolean isPaused() {
        return paused && isAlive();
    }

    /**
     * Kills the process with SIGKILL (a crash: nothing is flushed) and waits for it to exit;
     * does nothing if it is not alive. Works on a paused process too.
     *
     * @throws IllegalStateException if it does not exit within 10 s (an interrupt does not cut the wait short)
     */
    public void kill() {
        RedisLauncher.killAndWait(process);
        paused = false;
    }

    /**
     * Freezes the process with SIGSTOP: connections stay open but nothing is answered, like a
     * long GC pause or a stalled VM. Returns once the process is stopped (on Linux).
     *
     * @throws IllegalStateException if the process is not alive or cannot be stopped
     */
    public void pause() {
        requireAlive("pause");
        Signals.stop(pid());
        paused = true;
    }

    /**
     * Resumes a paused process with SIGCONT; harmless on a running one.
     *
     * @throws IllegalStateException if the process is not alive or the signal fails
     */
    public void resume() {
        requireAlive("resume");
        Signals.cont(pid());
        paused = false;
    }

    /**
     * Stops the process gracefully with SIGTERM (resuming it first if paused, since a stopped
     * process cannot act on SIGTERM) and waits for it to exit; does nothing if it is not alive.
     *
     * @throws IllegalStateException if it does not exit within 10 s (it is then killed); an interrupt does not cut the wait short
     */
    public void stop() {
        Process current = process;
        if (!current.isAlive()) {
            return;
        }
        // On an interrupted thread the kill(1) of resume() would fail and leave the server paused.
        Uninterruptibly.run(() -> {
            if (paused) {
                resume();
            }
            // Process.destroy() is SIGTERM on POSIX, and unlike kill(1) never hits a recycled pid.
            current.destroy();
            try {
                RedisLauncher.awaitExit(current);
            } catch (IllegalStateException e) {
                current.destroyForcibly();
                throw e;
            }
        });
    }

    /**
     * Starts a new process on the same port, with the same directory (so persisted data is
     * loaded) and arguments, after {@link #kill()} or {@link #stop()}; waits until it answers
     * PING. If the port is briefly held by someone else (e.g. a client's outgoing connection
     * given it as its local port meanwhile), retries for a few seconds.
     *
     * @throws IllegalStateException if the server is closed or still running, or the new
     *     process fails to start; the message carries the tail of the log
     */
    public void restart() {
        if (closed.get()) {
            throw new IllegalStateException("cannot restart a closed server");
        }
        if (isAlive()) {
            throw new IllegalStateException("redis-server on port " + port() + " is still running; "
                    + "call kill() or stop() before restart()");
        }
        process = launcher.launch(PORT_BUSY_PATIENCE);
        paused = false;
    }

    /**
     * Kills the process if alive (SIGKILL ends a paused one too) and deletes the working
     * directory; idempotent. A directory that cannot be deleted is logged, not thrown.
     *
     * @throws IllegalStateException if the process does not exit within 10 s
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // kill() waits through an interrupt (RedisLauncher.awaitExit), so a close on an interrupted thread still ends it.
        try {
            kill();
        } finally {
            Directories.deleteRegistered(dir(), "redis-server");
        }
    }

    /**
     * The last {@code lines} lines of {@code redis.log} (including anything the process printed), or {@code ""}.
     *
     * @throws IllegalArgumentException if {@code lines} is negative
     * @throws UncheckedIOException if the log exists but cannot be read
     */
    public String logTail(int lines) {
        return launcher.logTail(lines);
    }

    /**
     * Sends one command on a fresh connection (TLS when the server serves TLS), after AUTH
     * with the configured password or first ACL user, and returns the decoded reply (see
     * {@link RespClient}).
     *
     * @throws RedisReplyException if the reply is an error
     * @throws UncheckedIOException if the server cannot be reached or does not answer within 5 s
     */
    public Object command(String... args) {
        try (RespClient client = launcher.connect()) {
            return client.call(args);
        }
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + ", pid " + pid() + "]";
    }

    private void requireAlive(String action) {
        if (!isAlive()) {
            throw new IllegalStateException("cannot " + action + " redis-server on port " + port() + ": it is not running");
        }
    }
}
