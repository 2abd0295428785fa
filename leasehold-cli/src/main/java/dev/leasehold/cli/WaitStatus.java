package dev.leasehold.cli;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockInfo;
import dev.leasehold.engine.EngineLockClient;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * While {@code run} waits for its lock, tells who holds it and for how long: it reads the lock
 * with the backend's inspect on a timer of its own and shows the answer on a
 * {@link StatusLine}. It only reads, so it cannot disturb the acquisition it reports on.
 *
 * <p>It speaks only of a real wait: not for {@code --wait 0} (one attempt, no waiting), not while
 * the lock looks free (the acquisition is being granted), not once the wait has run out (the
 * outcome is being told), and not at all on a backend that cannot inspect. The waiters it counts
 * are the others: on every backend a waiting acquisition registers itself, so the backend's count
 * includes this one.
 */
final class WaitStatus implements AutoCloseable {

    private static final Duration FIRST_LOOK = Duration.ofMillis(100);
    private static final Duration TERMINAL_PERIOD = Duration.ofMillis(250);
    private static final Duration PLAIN_PERIOD = Duration.ofSeconds(1);

    private final EngineLockClient client;
    private final String name;
    private final StatusLine line;
    private final long startNanos = System.nanoTime();
    private final Duration wait;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "leasehold-wait-status");
        thread.setDaemon(true);
        return thread;
    });
    /** The holders and the count of other waiters last shown: a change is news, a ttl ticking down is not. */
    private List<Object> lastShown = List.of();

    /** @param wait how long the acquisition waits, or {@code null} for as long as it takes */
    WaitStatus(EngineLockClient client, String name, StatusLine line, Duration wait) {
        this.client = client;
        this.name = name;
        this.line = line;
        this.wait = wait;
    }

    /** Starts showing the status shortly, so an acquisition that succeeds at once shows nothing. */
    void start() {
        if (wait != null && wait.isZero()) {
            return;
        }
        Duration period = line.isTerminal() ? TERMINAL_PERIOD : PLAIN_PERIOD;
        timer.scheduleWithFixedDelay(this::show, FIRST_LOOK.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Who holds the lock, in a few words, for the status line or a "not obtained" message: the
     * oldest holder, how many more share it and their kind when they are not alone, and its
     * remaining ttl; "it is free now" when nobody holds it.
     */
    static String holding(LockInfo info) {
        if (info.foreign().isPresent()) {
            return "another program uses the name (" + info.foreign().get() + ")";
        }
        if (!info.isHeld()) {
            return "it is free now";
        }
        String kind = info.kind().filter(held -> !held.exclusive()).map(held -> held.tag() + ", ").orElse("");
        return "held by " + LockInfoFormat.holders(info) + " ("  + kind
                + info.remaining().map(left -> Durations.format(left) + " left").orElse("no ttl") + ")";
    }

    /** The line while this acquisition waits: the holders, and the waiters besides this one. */
    static String waiting(LockInfo info) {
        long others = others(info);
        return holding(info) + (others == 0 ? "" : ", " + others + (others == 1 ? " other" : " others") + " waiting");
    }

    /**
     * The waiters besides this acquisition. Its own registration may not have reached the backend
     * yet at the first look, so that look may count one too few; a later one, with the right count,
     * is news.
     */
    private static long others(LockInfo info) {
        return Math.max(0, info.waiters() - 1);
    }

    private void show() {
        String state;
        boolean news;
        try {
            LockInfo info = client.inspect(name);
            if (!info.isHeld() && info.foreign().isEmpty()) {
                return; // nothing stands in the way: the grant is under way
            }
            state = waiting(info);
            List<Object> shown = List.of(info.holders(), others(info));
            news = !shown.equals(lastShown);
            lastShown = shown;
        } catch (LeaseholdException e) {
            state = "cannot read its state: " + e.getMessage();
            news = false;
        } catch (UnsupportedOperationException e) {
            timer.shutdown(); // the backend cannot tell; the wait goes on without a status
            return;
        }
        Optional<Duration> left = left();
        if (Thread.currentThread().isInterrupted() || left.filter(giveUp -> giveUp.toMillis() < 1).isPresent()) {
            return; // closed meanwhile, or the wait is over: a late line would outlive it
        }
        line.update("leasehold: waiting for lock '" + name + "': " + state
                + left.map(giveUp -> "; giving up in " + Durations.format(giveUp)).orElse(""), news);
    }

    /** What is left of the wait; empty when it lasts as long as it takes. */
    private Optional<Duration> left() {
        return Optional.ofNullable(wait).map(limit -> limit.minusNanos(System.nanoTime() - startNanos));
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
