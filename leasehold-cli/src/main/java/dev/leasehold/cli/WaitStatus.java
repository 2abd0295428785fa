package dev.leasehold.cli;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockInfo;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * While {@code run} waits for its lock, tells who holds it and for how long: it reads the lock
 * with the backend's inspect on a timer of its own and shows the answer on a
 * {@link StatusLine}. It only reads, so it cannot disturb the acquisition it reports on.
 */
final class WaitStatus implements AutoCloseable {

    private static final Duration FIRST_LOOK = Duration.ofMillis(100);
    private static final Duration TERMINAL_PERIOD = Duration.ofMillis(250);
    private static final Duration PLAIN_PERIOD = Duration.ofSeconds(1);

    private final Function<String, LockInfo> inspect;
    private final String name;
    private final StatusLine line;
    private final long startNanos = System.nanoTime();
    private final Duration wait;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "leasehold-wait-status");
        thread.setDaemon(true);
        return thread;
    });
    private Optional<String> lastHolder = Optional.empty();

    /** @param wait how long the acquisition waits, or {@code null} for as long as it takes */
    WaitStatus(Function<String, LockInfo> inspect, String name, StatusLine line, Duration wait) {
        this.inspect = inspect;
        this.name = name;
        this.line = line;
        this.wait = wait;
    }

    /** Starts showing the status shortly, so an acquisition that succeeds at once shows nothing. */
    void start() {
        Duration period = line.isTerminal() ? TERMINAL_PERIOD : PLAIN_PERIOD;
        timer.scheduleWithFixedDelay(this::show, FIRST_LOOK.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One sentence about the lock's current state, for the status line or a "not obtained" message. */
    static String describe(LockInfo info) {
        if (!info.isHeld()) {
            return "it is free now";
        }
        return "held by " + info.holder().orElseThrow()
                + info.remaining().map(left -> " (" + Durations.format(left) + " left)").orElse(" (no ttl)")
                + (info.waiters() > 0 ? ", " + info.waiters() + " waiting" : "");
    }

    private void show() {
        String state;
        boolean news;
        try {
            LockInfo info = inspect.apply(name);
            state = describe(info);
            news = !Objects.equals(info.holder(), lastHolder);
            lastHolder = info.holder();
        } catch (LeaseholdException e) {
            state = "cannot read its state: " + e.getMessage();
            news = false;
        }
        if (Thread.currentThread().isInterrupted()) {
            return; // closed meanwhile: the wait is over, and a late line would outlive it
        }
        line.update("leasehold: waiting for lock '" + name + "': " + state + giveUp(), news);
    }

    private String giveUp() {
        if (wait == null) {
            return "";
        }
        Duration left = wait.minusNanos(System.nanoTime() - startNanos);
        return "; giving up in " + Durations.format(left);
    }

    /** Stops the timer and clears the terminal line; returns once no update can follow. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        line.clear();
    }
}
