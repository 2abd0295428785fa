package dev.leasehold.integration;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.spi.Args;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A Spring Integration lock registry over any Leasehold {@link LockClient} (Redis, Redlock,
 * ZooKeeper, etcd, PostgreSQL), for {@code LockRegistryLeaderInitiator}, aggregators, metadata
 * stores and every component that takes a {@code LockRegistry}:
 *
 * <pre>{@code
 * LockRegistry<LeaseholdLock> registry = new LeaseholdLockRegistry(lockClient);
 * LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
 * }</pre>
 *
 * <p><b>Locks.</b> {@link #obtain(Object)} returns a {@link LeaseholdLock} for a {@code String} key,
 * the same object for the same key until {@link #expireUnusedOlderThan(long)} forgets it. The
 * backend lock's name is the key, or {@code registryKey + ":" + key} with a registry key (as
 * {@code RedisLockRegistry} names its keys). Each first lock of a thread acquires a {@link Lease}
 * with this registry's {@link LockOptions} (by default a watchdog lease of 30 s, renewed by the
 * client every ttl/3 for as long as it is held): other registries, clients and processes are
 * excluded by the backend, other threads of this registry wait locally first, as in Spring
 * Integration's own registries. The lease's fencing token is reachable through
 * {@link LeaseholdLock#currentLease()} or {@link #currentLease(Object)}.
 *
 * <p><b>Per thread, reentrant.</b> As with {@code RedisLockRegistry} and {@code JdbcLockRegistry},
 * the thread that locked is the owner: it may lock again (counted locally, no round trip, no new
 * token) and must unlock as often; another thread's {@code unlock()} throws
 * {@link IllegalMonitorStateException}.
 *
 * <p><b>A lost lease is never hidden.</b> When the lease is lost while held (a renewal found another
 * holder, the local deadline passed, a fixed lease ran out, the client closed), a further lock by the
 * owning thread throws {@link LeaseLostException} instead of re-entering, and the last
 * {@code unlock()} throws {@link LockLostException} (a {@code ConcurrentModificationException}, as
 * {@code RedisLockRegistry} throws) after dropping the hold. {@code LockRegistryLeaderInitiator}
 * therefore revokes leadership at its next heartbeat and competes again. To stop work the moment a
 * lease is lost, watch its {@link Lease#lost()}; to keep a resource safe from a holder that
 * outlived its lease, pass {@link Lease#token()} with each write through a guard.
 *
 * <p>Thread-safe. The registry does not own the client: close the client when the application
 * stops (held leases are then lost, and their keys deleted).
 */
public final class LeaseholdLockRegistry
        implements ExpirableLockRegistry<LeaseholdLock>, RenewableLockRegistry<LeaseholdLock> {

    private final LockClient client;
    private final String registryKey;
    private final LockOptions options;
    private final ConcurrentHashMap<String, KeyState> states = new ConcurrentHashMap<>();

    /**
     * A registry whose locks are named by their keys and held with {@link LockOptions#defaults()}
     * (watchdog, ttl 30 s).
     *
     * @throws IllegalArgumentException if client is null
     */
    public LeaseholdLockRegistry(LockClient client) {
        this(client, LockOptions.defaults());
    }

    /**
     * A registry whose locks are named by their keys and held with {@code options}: e.g.
     * {@code LockOptions.watchdog(Duration.ofSeconds(10))} (renewed while held), or
     * {@code LockOptions.fixedLease(Duration.ofMinutes(1))} (never renewed: lost after a minute,
     * as {@code RedisLockRegistry} without a renewal scheduler; extend it with {@link #renewLock}).
     *
     * @throws IllegalArgumentException if client or options is null
     */
    public LeaseholdLockRegistry(LockClient client, LockOptions options) {
        this.client = Args.notNull("client", client);
        this.options = Args.notNull("options", options);
        this.registryKey = null;
    }

    /**
     * A registry whose lock names are {@code registryKey + ":" + key}, so several registries (or
     * applications) share one backend without sharing locks, as {@code RedisLockRegistry}'s registry
     * key does.
     *
     * @throws IllegalArgumentException if client or options is null, or registryKey is null or blank
     */
    public LeaseholdLockRegistry(LockClient client, String registryKey, LockOptions options) {
        this.client = Args.notNull("client", client);
        this.options = Args.notNull("options", options);
        if (registryKey == null || registryKey.isBlank()) {
            throw new IllegalArgumentException("registryKey must be a non-blank prefix such as \"orders\", got "
                    + (registryKey == null ? "null" : "\"" + registryKey + "\"")
                    + "; use LeaseholdLockRegistry(client, options) for lock names without a prefix");
        }
        this.registryKey = registryKey;
    }

    /**
     * The lock for this key: the same object for the same key until it is forgotten by
     * {@link #expireUnusedOlderThan(long)}. Obtaining a lock takes nothing on the backend.
     *
     * @throws IllegalArgumentException if the key is not a {@code String}, or the backend refuses the
     *                                  lock name (blank, too long, ...; the message says why)
     * @throws dev.leasehold.LockClientClosedException if the client was closed
     */
    @Override
    public LeaseholdLock obtain(Object lockKey) {
        KeyState state = states.compute(keyOf(lockKey), (key, known) -> known != null ? known : newState(key));
        state.touch();
        return state.handle;
    }

    /**
     * The lease the current thread holds on this key's lock, with its fencing token; empty if this
     * thread does not hold it. Inside {@code executeLocked(key, ...)} or a leader's
     * {@code Candidate.onGranted}, this is the lease that protects the work.
     *
     * @throws IllegalArgumentException if the key is not a {@code String}
     */
    public Optional<Lease> currentLease(Object lockKey) {
        KeyState state = states.get(keyOf(lockKey));
        if (state == null || !state.local.isHeldByCurrentThread()) {
            return Optional.empty();
        }
        return Optional.ofNullable(state.lease);
    }

    /**
     * Forgets every lock not locked nor being locked by any thread of this registry whose last use
     * (obtained, locked or unlocked) is more than {@code age} milliseconds ago. A held lock is never
     * forgotten. A forgotten lock's object still works: it finds (or makes again) its key's state, so
     * a component that kept it, such as a leader initiator, keeps its exclusion and its reentrancy.
     *
     * @param age milliseconds of idleness, 0 or more
     * @throws IllegalArgumentException if age is negative
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        if (age < 0) {
            throw new IllegalArgumentException("age must be 0 or more milliseconds, got " + age);
        }
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
        long now = System.nanoTime();
        for (String key : states.keySet()) {
            states.computeIfPresent(key, (k, state) -> state.users == 0 && state.idleNanos(now) > ageNanos ? null : state);
        }
    }

    /**
     * Extends the lease the current thread holds on this key's lock to this registry's ttl from now
     * (see {@link #renewLock(Object, Duration)}).
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, options.ttl());
    }

    /**
     * Extends the lease the current thread holds on this key's lock to {@code ttl} from now, on the
     * backend ({@link Lease#extend(Duration)}: a compare-and-extend that succeeds only while the lease
     * is still this holder's, and never shortens it). Needed for fixed leases; watchdog leases are
     * renewed by the client anyway.
     *
     * @throws IllegalArgumentException if the key is not a {@code String}, or ttl is null or outside
     *                                  [{@link LockOptions#MIN_TTL}, {@link LockOptions#MAX_TTL}]
     * @throws IllegalStateException    if the current thread does not hold the lock
     * @throws LeaseLostException       if the lease was already lost, or the backend found another
     *                                  holder (or none); the lock must still be unlocked
     * @throws LockUnavailableException if the backend could not be reached; the lease keeps its old
     *                                  deadline
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        String key = keyOf(lockKey);
        KeyState state = states.get(key);
        if (state == null || !state.local.isHeldByCurrentThread()) {
            throw new IllegalStateException("lock '" + lockName(key) + "' is not held by the current thread: "
                    + "renewLock extends only a lock this thread holds; lock it first");
        }
        state.lease.extend(ttl);
    }

    /**
     * Not supported: the client's own watchdog renews leases (every ttl/3) for as long as they are
     * held, and a renewal that finds another holder marks the lease lost at once.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        throw new UnsupportedOperationException("LeaseholdLockRegistry needs no renewal scheduler: build it with "
                + "LockOptions.watchdog(ttl) (the default) and the client renews held leases itself");
    }

    /** This registry's lock options. */
    public LockOptions options() {
        return options;
    }

    @Override
    public String toString() {
        return "LeaseholdLockRegistry[" + client.describe() + (registryKey == null ? "" : ", registryKey=" + registryKey)
                + ", " + options + "]";
    }

    String lockName(String key) {
        return registryKey == null ? key : registryKey + ":" + key;
    }

    /** The options of a lock taken with its own ttl: this registry's mode, maxHold and replica acks. */
    LockOptions optionsWithTtl(Duration ttl) {
        LockOptions changed = options.isWatchdog() ? LockOptions.watchdog(ttl) : LockOptions.fixedLease(ttl);
        if (options.maxHold().isPresent()) {
            changed = changed.withMaxHold(options.maxHold().get());
        }
        if (options.replicaAck().isPresent()) {
            changed = changed.withReplicaAck(options.replicaAck().get().replicas(), options.replicaAck().get().timeout());
        }
        return changed;
    }

    dev.leasehold.DistributedLock remote(KeyState state, LockOptions ttlOptions) {
        return ttlOptions == null ? state.remote : client.lock(lockName(state.key), ttlOptions);
    }

    /** The key's state, counting the caller as a user until {@link #leave(KeyState)}. */
    KeyState enter(String key) {
        return states.compute(key, (k, known) -> {
            KeyState state = known != null ? known : newState(k);
            state.users++;
            return state;
        });
    }

    void leave(KeyState state) {
        // While the caller counts as a user the key maps to this very state: it cannot have been expired.
        states.computeIfPresent(state.key, (k, known) -> {
            known.users--;
            return known;
        });
    }

    /** The state of a key some thread uses, or null. */
    KeyState existing(String key) {
        return states.get(key);
    }

    private KeyState newState(String key) {
        return new KeyState(key, client.lock(lockName(key), options), new LeaseholdLock(this, key));
    }

    private static String keyOf(Object lockKey) {
        if (lockKey instanceof String key) {
            return key;
        }
        throw new IllegalArgumentException("lock keys must be Strings (as RedisLockRegistry and JdbcLockRegistry "
                + "require), got " + (lockKey == null ? "null" : "a " + lockKey.getClass().getName())
                + "; convert the key, e.g. with toString()");
    }
}
