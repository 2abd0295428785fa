package dev.leasehold.bench;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Leasehold in watchdog mode, as a user gets it from {@link RedisLocks#connect} (or another backend's
 * client): the mutex, or one of the other kinds of the lock family (fair lock, read lock, semaphore permit).
 */
final class LeaseholdAdapter implements LockAdapter {

    /** Which kind of lock {@link #lock(String)} hands out. */
    enum Kind {
        MUTEX, FAIR, READ, SEMAPHORE
    }

    /** Permits of every semaphore the benchmarks create (each thread uses a name of its own). */
    static final int SEMAPHORE_PERMITS = 3;

    private final LockClient client;
    private final LockOptions options;
    private final String label;
    private final Kind kind;

    LeaseholdAdapter(LockClient client, Duration ttl, String label) {
        this(client, ttl, label, Kind.MUTEX);
    }

    LeaseholdAdapter(LockClient client, Duration ttl, String label, Kind kind) {
        this(client, LockOptions.watchdog(ttl), label, kind);
    }

    /** The mutex, taken with {@code options} (e.g. with replica acknowledgement). */
    LeaseholdAdapter(LockClient client, LockOptions options, String label) {
        this(client, options, label, Kind.MUTEX);
    }

    private LeaseholdAdapter(LockClient client, LockOptions options, String label, Kind kind) {
        this.client = client;
        this.options = options;
        this.label = label;
        this.kind = kind;
    }

    static LeaseholdAdapter connect(String uri, Duration ttl) {
        return connect(uri, ttl, "Leasehold", Kind.MUTEX);
    }

    static LeaseholdAdapter connect(String uri, Duration ttl, String label, Kind kind) {
        return new LeaseholdAdapter(RedisLocks.connect(uri), ttl, label, kind);
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Handle lock(String name) {
        Supplier<Lease> acquire = switch (kind) {
            case MUTEX -> client.lock(name, options)::acquire;
            case FAIR -> client.fairLock(name, options)::acquire;
            case READ -> client.readWriteLock(name, options).readLock()::acquire;
            case SEMAPHORE -> {
                DistributedSemaphore semaphore = client.semaphore(name, SEMAPHORE_PERMITS, options);
                yield semaphore::acquire;
            }
        };
        return () -> {
            Lease lease = acquire.get();
            return Held.of(lease.token(), lease::release, lease::isValid);
        };
    }

    /** The client's own counters of per-lease and per-name state (none for a client outside the engine). */
    @Override
    public Map<String, Long> clientState() {
        Map<String, Long> state = new LinkedHashMap<>();
        if (client instanceof EngineLockClient engine) {
            state.put("held leases", (long) engine.heldLeases());
            state.put("names with a local queue", (long) engine.activeLockNames());
            state.put("pending timers", (long) engine.pendingTimers());
        }
        if (client instanceof RedisLockClient redis) {
            state.put("subscriptions", (long) redis.activeSubscriptions());
        }
        return state;
    }

    @Override
    public void close() {
        client.close();
    }
}
