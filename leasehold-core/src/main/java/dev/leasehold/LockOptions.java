package dev.leasehold;

import dev.leasehold.spi.Args;

import java.time.Duration;
import java.util.Optional;

/**
 * How a lease is held once acquired. Immutable; build one with {@link #watchdog(Duration)}
 * or {@link #fixedLease(Duration)} and refine it with {@link #withMaxHold(Duration)}.
 *
 * <ul>
 *   <li><b>Watchdog</b> (the default, ttl 30 s): the server-side key lives for {@code ttl}
 *   and the client's renewal scheduler extends it every {@code ttl / 3} for as long as the
 *   lease is held (at most {@code maxHold}, when set). If the client dies, the key expires
 *   within {@code ttl}.</li>
 *   <li><b>Fixed lease</b>: the key lives for exactly {@code leaseTime}; nothing renews it.
 *   The lease is lost when its local deadline passes, even if the holder is still working.</li>
 * </ul>
 *
 * <p>The <em>local deadline</em> of a lease is the send time of its acquire (or of its last
 * successful renewal) plus the ttl minus the drift, {@code ttl * 0.01 + 2 ms}, measured
 * with {@link System#nanoTime()}. Past it, {@link Lease#isValid()} is false.
 */
public final class LockOptions {

    /** Shortest ttl accepted: below it the drift allowance eats the lease. */
    public static final Duration MIN_TTL = Duration.ofMillis(10);
    /** Longest ttl accepted: a lock held longer than this without renewal is a configuration error. */
    public static final Duration MAX_TTL = Duration.ofDays(1);
    /** Longest {@code maxHold} accepted. */
    public static final Duration MAX_HOLD = Duration.ofDays(30);
    /** The ttl used when none is given. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

    private static final LockOptions DEFAULTS = new LockOptions(DEFAULT_TTL, true, null);

    private final Duration ttl;
    private final boolean watchdog;
    private final Duration maxHold;

    private LockOptions(Duration ttl, boolean watchdog, Duration maxHold) {
        this.ttl = ttl;
        this.watchdog = watchdog;
        this.maxHold = maxHold;
    }

    /** Watchdog mode with a 30 s ttl. */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Watchdog mode: the lease is renewed every {@code ttl / 3} until released.
     *
     * @throws IllegalArgumentException if ttl is null or outside [{@link #MIN_TTL}, {@link #MAX_TTL}]
     */
    public static LockOptions watchdog(Duration ttl) {
        return new LockOptions(Args.within("ttl", ttl, MIN_TTL, MAX_TTL), true, null);
    }

    /**
     * Fixed lease: the lock is held for {@code leaseTime} at most, with no renewal.
     *
     * @throws IllegalArgumentException if leaseTime is null or outside [{@link #MIN_TTL}, {@link #MAX_TTL}]
     */
    public static LockOptions fixedLease(Duration leaseTime) {
        return new LockOptions(Args.within("leaseTime", leaseTime, MIN_TTL, MAX_TTL), false, null);
    }

    /**
     * Stops renewing after {@code maxHold}, so a holder that forgets to release (or hangs)
     * cannot keep the lock forever; the lease is then lost with a reason that names maxHold.
     *
     * @throws IllegalArgumentException if these are fixed-lease options (never renewed), or maxHold
     *                                  is null, shorter than the ttl or longer than {@link #MAX_HOLD}
     */
    public LockOptions withMaxHold(Duration maxHold) {
        if (!watchdog) {
            throw new IllegalArgumentException("maxHold bounds the watchdog's renewals, and a fixed lease is never "
                    + "renewed: it already ends after its leaseTime; use watchdog(ttl).withMaxHold(maxHold)");
        }
        return new LockOptions(ttl, watchdog, Args.within("maxHold", maxHold, ttl, MAX_HOLD));
    }

    /** How long the server keeps the key without renewal (the lease time in fixed mode). */
    public Duration ttl() {
        return ttl;
    }

    /** Whether the renewal scheduler extends the lease. */
    public boolean isWatchdog() {
        return watchdog;
    }

    /** The longest the watchdog keeps renewing, if limited. */
    public Optional<Duration> maxHold() {
        return Optional.ofNullable(maxHold);
    }

    /** The renewal period in watchdog mode: a third of the ttl. */
    public Duration renewalPeriod() {
        return ttl.dividedBy(3);
    }

    /** The allowance for server TTL precision and clock-rate error: {@code ttl * 0.01 + 2 ms}. */
    public Duration drift() {
        return drift(ttl);
    }

    /** The drift for a given ttl: {@code ttl * 0.01 + 2 ms}, as in the Redlock reference implementations. */
    public static Duration drift(Duration ttl) {
        return ttl.dividedBy(100).plusMillis(2);
    }

    @Override
    public String toString() {
        return (watchdog ? "watchdog(ttl=" : "fixedLease(leaseTime=") + ttl
                + (maxHold == null ? "" : ", maxHold=" + maxHold) + ")";
    }
}
