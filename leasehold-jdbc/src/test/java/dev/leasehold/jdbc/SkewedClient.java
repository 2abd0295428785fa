package dev.leasehold.jdbc;

import dev.leasehold.launcher.LibFaketime;
import dev.leasehold.launcher.PostgresServer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@link SkewedClientMain} in a JVM of its own whose clocks are offset by libfaketime: its
 * {@code System.currentTimeMillis()} is {@code FAKETIME} away from this JVM's. The monotonic clock
 * is offset by the same constant, which {@code System.nanoTime()} differences never see.
 * {@code FAKETIME_DONT_FAKE_MONOTONIC=1} must not be set: libfaketime 0.9.10 then still shifts the
 * deadlines of the JVM's timed waits (which it takes on {@code CLOCK_MONOTONIC}) by the offset, so
 * with {@code -10m} every timed park sleeps ten minutes too long (the client hangs in its first
 * contended acquire) and with {@code +10m} every one returns early (here the client ran 4 times
 * slower). Commands
 * are sent one a line and answered one a line, read by one thread of its own.
 */
final class SkewedClient implements AutoCloseable {
    /** Queued after the client's last line; no line of {@link SkewedClientMain} is empty. */
    private static final String EXITED = "";

    private final String offset;
    private final Process process;
    private final Writer commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Path log;

    private SkewedClient(String offset, Process process, Path log) {
        this.offset = offset;
        this.process = process;
        this.log = log;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> read(process), "skewed-client-" + offset);
        reader.setDaemon(true);
        reader.start();
    }

    /** Queues each line the client prints, then {@link #EXITED} (a timed-out wait must not lose a later line). */
    private void read(Process process) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                answers.add(line);
            }
        } catch (IOException e) {
            // the client is gone; said below
        }
        answers.add(EXITED);
    }

    /**
     * Starts a client on {@code server} with the wall clock offset by {@code offset} (libfaketime's
     * syntax, e.g. {@code +10m}), on this JVM's class path, and waits until it is connected.
     */
    static SkewedClient start(PostgresServer server, String offset) throws IOException {
        Path log = Files.createTempFile("skewed-client-", ".log");
        log.toFile().deleteOnExit();
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), SkewedClientMain.class.getName(),
                server.jdbcUrl(), server.user());
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
        builder.environment().put("LD_PRELOAD", LibFaketime.LIBRARY.toString());
        builder.environment().put("FAKETIME", offset);
        builder.environment().remove("FAKETIME_DONT_FAKE_MONOTONIC");
        builder.environment().put(SkewedClientMain.PASSWORD_ENV, server.password());
        SkewedClient client = new SkewedClient(offset, builder.start(), log);
        try {
            String ready = client.readAnswer(Duration.ofSeconds(90));
            if (!ready.equals("ready")) {
                throw new IllegalStateException(client.describe("did not start: " + ready));
            }
            return client;
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** Sends {@code command} without waiting for its answer. */
    void send(String command) {
        try {
            commands.write(command + "\n");
            commands.flush();
        } catch (IOException e) {
            throw new IllegalStateException(describe("cannot take '" + command + "'"), e);
        }
    }

    /** The answer to the oldest command sent and not yet answered, waiting at most {@code timeout}. */
    String readAnswer(Duration timeout) {
        try {
            String answer = answers.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (answer == null) {
                throw new IllegalStateException(describe("did not answer within " + timeout));
            }
            if (answer.equals(EXITED)) {
                answers.add(EXITED);
                throw new IllegalStateException(describe("exited"));
            }
            if (answer.startsWith("error ")) {
                throw new IllegalStateException(describe("failed: " + answer));
            }
            return answer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Sends {@code command} and returns its answer. */
    String ask(String command, Duration timeout) {
        send(command);
        return readAnswer(timeout);
    }

    private String describe(String what) {
        String stderr;
        try {
            stderr = Files.readString(log);
        } catch (IOException e) {
            stderr = "(unreadable: " + e + ")";
        }
        return "the client with FAKETIME=" + offset + " " + what + "; its stderr:\n" + stderr;
    }

    /** Closes its input (the client releases what it holds and exits), then kills it if it lingers. */
    @Override
    public void close() {
        try {
            commands.close();
        } catch (IOException e) {
            // it has exited already
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "client at FAKETIME=" + offset;
    }
}
