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

    /** Most replicas {@link #withReplicaAck} may ask for. */
    public static final int MAX_REPLICA_ACKS = 100;
    /** Longest wait for replica acknowledgements {@link #withReplicaAck} accepts. */
    public static final Duration MAX_REPLICA_ACK_TIMEOUT = Duration.ofMinutes(1);

    private static final LockOptions DEFAULTS = new LockOptions(DEFAULT_TTL, true, null, null, null);

    private final Duration ttl;
    private final boolean watchdog;
    private final Duration maxHold;
    private final ReplicaAck replicaAck;
    private final Duration holdAtLeast;

    private LockOptions(Duration ttl, boolean watchdog, Duration maxHold, ReplicaAck replicaAck, Duration holdAtLeast) {
        this.ttl = ttl;
        this.watchdog = watchdog;
        this.maxHold = maxHold;
        this.replicaAck = replicaAck;
        this.holdAtLeast = holdAtLeast;
    }

    /**
     * How many replicas must acknowledge an acquire or a renewal, and how long to wait for them.
     *
     * @param replicas at least this many replicas must have the write
     * @param timeout  how long the server waits for them
     */
    public record ReplicaAck(int replicas, Duration timeout) {
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
        return new LockOptions(Args.within("ttl", ttl, MIN_TTL, MAX_TTL), true, null, null, null);
    }

    /**
     * Fixed lease: the lock is held for {@code leaseTime} at most, with no renewal.
     *
     * @throws IllegalArgumentException if leaseTime is null or outside [{@link #MIN_TTL}, {@link #MAX_TTL}]
     */
    public static LockOptions fixedLease(Duration leaseTime) {
        return new LockOptions(Args.within("leaseTime", leaseTime, MIN_TTL, MAX_TTL), false, null, null, null);
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
        return new LockOptions(ttl, watchdog, Args.within("maxHold", maxHold, ttl, MAX_HOLD), replicaAck, holdAtLeast);
    }

    /**
     * Asks the backend's replicas to acknowledge each acquire and each renewal before it counts:
     * on Redis, the acquire script is followed by {@code WAIT replicas timeout}; if fewer replicas
     * acknowledged in time, the acquire releases what it took and throws a
     * {@link LockUnavailableException} saying how many did, and a renewal counts as failed (the
     * lease is lost at its local deadline unless a later renewal is acknowledged).
     *
     * <p><b>What it buys:</b> a lease acknowledged by {@code replicas} replicas survives a failover
     * that promotes one of them, so a master that dies right after granting the lock no longer
     * hands it to a second holder through a replica that never saw it.
     *
     * <p><b>What it does not:</b> {@code WAIT} is not consensus. The write is not rolled back when
     * too few replicas acknowledge (this client releases it, which can itself be lost); the
     * failover may still promote a replica that did not acknowledge (Sentinel and Cluster pick by
     * replication offset and priority, not by who acknowledged); replicas acknowledge receipt, not
     * persistence, so a replica restarted without persistence forgets the key. It narrows the
     * failover window, it does not close it: fence every write with the lease's token. Each
     * acquire and renewal costs one more round trip, which lasts as long as the slowest of the
     * {@code replicas} fastest replicas.
     *
     * <p>Honoured by the Redis backend on a single server, behind Sentinel and on a Cluster (where
     * the lock's master waits for its own replicas); backends without asynchronous replicas
     * (consensus stores) do not need it and ignore it.
     *
     * @throws IllegalArgumentException if replicas is outside [1, {@value #MAX_REPLICA_ACKS}] or the
     *                                  timeout is null or outside [1 ms, {@link #MAX_REPLICA_ACK_TIMEOUT}]
     */
    public LockOptions withReplicaAck(int replicas, Duration timeout) {
        int acks = Args.within("replicas", replicas, 1, MAX_REPLICA_ACKS);
        return new LockOptions(ttl, watchdog, maxHold,
                new ReplicaAck(acks, Args.within("timeout", timeout, Duration.ofMillis(1), MAX_REPLICA_ACK_TIMEOUT)),
                holdAtLeast);
    }

    /**
     * Keeps the lock held on the server until at least {@code holdAtLeast} after the acquire, even
     * when the holder releases it sooner (ShedLock's {@code lockAtLeastFor}): a job that runs on
     * one machine of many, whose clocks fire a moment apart, then runs once per period instead of
     * once per machine. {@link Lease#release()} ends the lease for its holder at once, as always,
     * but instead of deleting the lock it shortens (or lengthens) its server-side life to what is
     * left of {@code acquired + holdAtLeast}, counted from the acquire's send time; once that has
     * passed, release deletes it as usual. The expiry is the server's, so it holds even if the
     * holder's process dies right after the release. Tokens and guards are unaffected: the next
     * holder's token exceeds this one's, whenever it comes. Closing the client keeps a held lease's
     * lock the same way; a lease lost before its release is not kept (its lock is another's, or
     * free). Each backend keeps the lock its own way ({@link dev.leasehold.spi.LockProtocol#releaseHolding});
     * one that cannot fails the release rather than free the lock early.
     *
     * @throws IllegalArgumentException if holdAtLeast is null or outside [1 ms, {@link #MAX_HOLD}],
     *                                  or longer than the leaseTime of fixed-lease options (a fixed
     *                                  lease ends after its leaseTime, which holdAtLeast cannot outlast)
     */
    public LockOptions holdAtLeast(Duration holdAtLeast) {
        Args.within("holdAtLeast", holdAtLeast, Duration.ofMillis(1), MAX_HOLD);
        if (!watchdog && holdAtLeast.compareTo(ttl) > 0) {
            throw new IllegalArgumentException("holdAtLeast (" + holdAtLeast + ") must not exceed the fixed lease's "
                    + "leaseTime (" + ttl + "): the lock ends after its leaseTime; use a longer leaseTime");
        }
        return new LockOptions(ttl, watchdog, maxHold, replicaAck, holdAtLeast);
    }

    /** How long after the acquire the lock stays held on the server however early it is released, if set. */
    public Optional<Duration> holdAtLeast() {
        return Optional.ofNullable(holdAtLeast);
    }

    /** The replica acknowledgement each acquire and renewal needs, if any (see {@link #withReplicaAck}). */
    public Optional<ReplicaAck> replicaAck() {
        return Optional.ofNullable(replicaAck);
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
        return dividedBy(ttl, 3);
    }

    /** The allowance for server TTL precision and clock-rate error: {@code ttl * 0.01 + 2 ms}. */
    public Duration drift() {
        return drift(ttl);
    }

    /** The drift for a given ttl: {@code ttl * 0.01 + 2 ms}, as in the Redlock reference implementations. */
    public static Duration drift(Duration ttl) {
        return dividedBy(ttl, 100).plusMillis(2);
    }

    /**
     * {@code duration.dividedBy(divisor)}, rounded as it rounds. Duration.dividedBy(long) divides in
     * BigDecimal, and every lease and every renewal answer takes these: divide the nanoseconds
     * instead, wherever they fit a long.
     */
    private static Duration dividedBy(Duration duration, long divisor) {
        return duration.getSeconds() < MAX_NANOS_IN_LONG_SECONDS && duration.getSeconds() >= 0
                ? Duration.ofNanos(duration.toNanos() / divisor)
                : duration.dividedBy(divisor);
    }

    /** Whole seconds below which a non-negative duration's nanoseconds fit a long. */
    private static final long MAX_NANOS_IN_LONG_SECONDS = Long.MAX_VALUE / 1_000_000_000L;

    @Override
    public String toString() {
        return (watchdog ? "watchdog(ttl=" : "fixedLease(leaseTime=") + ttl
                + (maxHold == null ? "" : ", maxHold=" + maxHold)
                + (replicaAck == null ? "" : ", replicaAck=" + replicaAck.replicas() + " within " + replicaAck.timeout())
                + (holdAtLeast == null ? "" : ", holdAtLeast=" + holdAtLeast)
                + ")";
    }
}
