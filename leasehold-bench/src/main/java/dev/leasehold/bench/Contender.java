package dev.leasehold.bench;

import dev.leasehold.redlock.RedlockLocks;

import java.time.Duration;
import java.util.List;

/**
 * The lock implementations a run compares. The constant names are also the values of the JMH
 * {@code contender} parameter.
 */
public enum Contender {

    LEASEHOLD("Leasehold", (uris, ttl, label) -> LeaseholdAdapter.connect(uris.get(0), ttl)),
    REDISSON("Redisson RLock", (uris, ttl, label) -> RedissonAdapter.connect(uris.get(0), ttl)),
    REDISSON_FENCED("Redisson RFencedLock", (uris, ttl, label) -> RedissonFencedAdapter.connect(uris.get(0), ttl)),
    RAW_FLOOR("raw floor", (uris, ttl, label) -> RawFloorAdapter.connect(uris.get(0), ttl)),
    LEASEHOLD_REDLOCK("Leasehold Redlock",
            (uris, ttl, label) -> new LeaseholdAdapter(RedlockLocks.connect(uris.toArray(String[]::new)), ttl, label)),
    REDISSON_REDLOCK("RedissonRedLock", (uris, ttl, label) -> RedissonRedLockAdapter.connect(uris, ttl)),
    LEASEHOLD_FAIR("Leasehold fair lock",
            (uris, ttl, label) -> LeaseholdAdapter.connect(uris.get(0), ttl, label, LeaseholdAdapter.Kind.FAIR)),
    REDISSON_FAIR("Redisson RFairLock", (uris, ttl, label) -> RedissonAdapter.fair(uris.get(0), ttl)),
    LEASEHOLD_READ("Leasehold read lock",
            (uris, ttl, label) -> LeaseholdAdapter.connect(uris.get(0), ttl, label, LeaseholdAdapter.Kind.READ)),
    REDISSON_READ("Redisson RReadWriteLock read lock", (uris, ttl, label) -> RedissonAdapter.read(uris.get(0), ttl)),
    LEASEHOLD_SEMAPHORE("Leasehold semaphore",
            (uris, ttl, label) -> LeaseholdAdapter.connect(uris.get(0), ttl, label, LeaseholdAdapter.Kind.SEMAPHORE)),
    REDISSON_SEMAPHORE("Redisson RPermitExpirableSemaphore",
            (uris, ttl, label) -> RedissonSemaphoreAdapter.connect(uris.get(0), ttl)),
    PUBSUB_DIRECT_FLOOR("pub/sub floor, handed over",
            (uris, ttl, label) -> RawPubSubAdapter.connect(uris.get(0), ttl, RawPubSubAdapter.Mode.DIRECT, label)),
    PUBSUB_RETRY_FLOOR("pub/sub floor, woken to retry",
            (uris, ttl, label) -> RawPubSubAdapter.connect(uris.get(0), ttl, RawPubSubAdapter.Mode.NOTIFY, label));

    /** The lock ttl all workloads but the watchdog's use: Leasehold's and Redisson's default watchdog timeout. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

    /** The single-node contenders, in the order of the tables. */
    public static final List<Contender> SINGLE_NODE = List.of(LEASEHOLD, REDISSON, REDISSON_FENCED, RAW_FLOOR);

    /** Each thread with a client of its own: the mutexes and the fair locks, against Redisson's. */
    public static final List<Contender> CLIENT_PER_THREAD = List.of(LEASEHOLD, REDISSON, LEASEHOLD_FAIR, REDISSON_FAIR);

    /**
     * {@link #CLIENT_PER_THREAD} and the two pub/sub floors ({@link RawPubSubAdapter}): what a lock
     * that hands over (or wakes a waiter to retry) with no other client work would do on the same
     * machine, for {@link ContentionBench}.
     */
    public static final List<Contender> WITH_PUBSUB_FLOORS = List.of(LEASEHOLD, REDISSON, LEASEHOLD_FAIR, REDISSON_FAIR,
            PUBSUB_DIRECT_FLOOR, PUBSUB_RETRY_FLOOR);

    /** The handoff rows: the single-node mutexes and the fair locks. */
    public static final List<Contender> HANDOFF = List.of(LEASEHOLD, REDISSON, REDISSON_FENCED, RAW_FLOOR,
            LEASEHOLD_FAIR, REDISSON_FAIR);

    /** The other kinds of the lock family, uncontended, each next to its Redisson peer. */
    public static final List<Contender> FAMILY = List.of(LEASEHOLD_READ, REDISSON_READ, LEASEHOLD_SEMAPHORE,
            REDISSON_SEMAPHORE);

    /** Contenders with a watchdog of their own; RFencedLock renews exactly like RLock, so it is left out. */
    public static final List<Contender> WATCHDOG_ROW = List.of(LEASEHOLD, REDISSON);

    /** The Redlock row: both Redlocks over all servers, and the single-node locks on the first one. */
    public static final List<Contender> REDLOCK_ROW = List.of(LEASEHOLD_REDLOCK, REDISSON_REDLOCK, LEASEHOLD, REDISSON);

    private final String label;
    private final Opener opener;

    Contender(String label, Opener opener) {
        this.label = label;
        this.opener = opener;
    }

    /** The row label. */
    public String label() {
        return label;
    }

    /**
     * The Redisson lock of the same kind that this row is compared with: {@link #REDISSON} for the
     * mutexes and the raw floor, and Redisson's fair lock, read lock and permit semaphore for
     * Leasehold's. A Redisson row is its own peer.
     */
    public Contender peer() {
        return switch (this) {
            case LEASEHOLD_FAIR, REDISSON_FAIR -> REDISSON_FAIR;
            case LEASEHOLD_READ, REDISSON_READ -> REDISSON_READ;
            case LEASEHOLD_SEMAPHORE, REDISSON_SEMAPHORE -> REDISSON_SEMAPHORE;
            case LEASEHOLD_REDLOCK, REDISSON_REDLOCK -> REDISSON_REDLOCK;
            default -> REDISSON;
        };
    }

    /** Whether this is one of Leasehold's locks. */
    public boolean leasehold() {
        return label.startsWith("Leasehold");
    }

    /**
     * Connects a fresh client.
     *
     * @param uris the servers: the first one for single-node contenders, all of them for Redlock
     * @param ttl  the lock ttl (watchdog timeout; the raw floor's fixed PX)
     */
    LockAdapter open(List<String> uris, Duration ttl) {
        return opener.open(uris, ttl, label);
    }

    /** How a contender connects its client; given the row label so that adapters can show it. */
    @FunctionalInterface
    private interface Opener {
        LockAdapter open(List<String> uris, Duration ttl, String label);
    }
}
