package dev.leasehold.bench;

import dev.leasehold.redlock.RedlockLocks;

import java.time.Duration;
import java.util.List;

/**
 * The lock implementations a run compares. The constant names are also the values of the JMH
 * {@code contender} parameter.
 */
public enum Contender {

    LEASEHOLD("Leasehold") {
        @Override
        LockAdapter open(List<String> uris, Duration ttl) {
            return LeaseholdAdapter.connect(uris.get(0), ttl);
        }
    },
    REDISSON("Redisson RLock") {
        @Override
        LockAdapter open(List<String> uris, Duration ttl) {
            return RedissonAdapter.connect(uris.get(0), ttl);
        }
    },
    REDISSON_FENCED("Redisson RFencedLock") {
        @Override
        LockAdapter open(List<String> uris, Duration ttl) {
            return RedissonFencedAdapter.connect(uris.get(0), ttl);
        }
    },
    RAW_FLOOR("raw floor") {
        @Override
        LockAdapter open(List<String> uris, Duration ttl) {
            return RawFloorAdapter.connect(uris.get(0), ttl);
        }
    },
    LEASEHOLD_REDLOCK("Leasehold Redlock") {
        @Override
        LockAdapter open(List<String> uris, Duration ttl) {
            return new LeaseholdAdapter(RedlockLocks.connect(uris.toArray(String[]::new)), ttl, label());
        }
    },
    REDISSON_REDLOCK("RedissonRedLock") {
        @Override
        LockAdapter open(List<String> uris, Duration ttl) {
            return RedissonRedLockAdapter.connect(uris, ttl);
        }
    };

    /** The lock ttl all workloads but the watchdog's use: Leasehold's and Redisson's default watchdog timeout. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

    /** The single-node contenders, in the order of the tables. */
    public static final List<Contender> SINGLE_NODE = List.of(LEASEHOLD, REDISSON, REDISSON_FENCED, RAW_FLOOR);

    /** Contenders with a watchdog of their own; RFencedLock renews exactly like RLock, so it is left out. */
    public static final List<Contender> WATCHDOG_ROW = List.of(LEASEHOLD, REDISSON);

    /** The Redlock row: both Redlocks over all servers, and the single-node locks on the first one. */
    public static final List<Contender> REDLOCK_ROW = List.of(LEASEHOLD_REDLOCK, REDISSON_REDLOCK, LEASEHOLD, REDISSON);

    private final String label;

    Contender(String label) {
        this.label = label;
    }

    /** The row label. */
    public String label() {
        return label;
    }

    /**
     * Connects a fresh client.
     *
     * @param uris the servers: the first one for single-node contenders, all of them for Redlock
     * @param ttl  the lock ttl (watchdog timeout; the raw floor's fixed PX)
     */
    abstract LockAdapter open(List<String> uris, Duration ttl);
}
