package dev.leasehold.redis;

import dev.leasehold.spi.Args;
import dev.leasehold.spi.LeaderRecords;
import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.engine.ReadWriteLockPair;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisDeployment;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.ReleaseChannels;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * A {@link LockClient} on one Redis deployment: a single server, the master a set of Sentinels
 * names (followed across failovers), or a Cluster. Create it with {@link RedisLocks#connect(String)},
 * {@link RedisLocks#connectCluster(String...)} or {@link RedisLocks#builder()}. Thread-safe; share
 * one per application.
 *
 * <p>It holds one command connection (Lettuce multiplexes every caller over it, so concurrent
 * acquires and renewals are pipelined; on a Cluster, one per master), one pub/sub connection
 * opened on the first wait, and one renewal thread. {@link #close()} ends all of them, and the
 * Lettuce client too when this client created it.
 *
 * <p><b>What it guarantees.</b> Mutual exclusion between holders whose leases are valid, as long
 * as the server does not lose the key: a restart without persistence or a failover to a replica
 * that had not received the key can grant the lock twice (Redis replication is asynchronous; a
 * Sentinel or Cluster failover promotes a replica that may lack the last writes). Fencing tokens
 * stay strictly increasing across holders as long as the server's clock does not step back by
 * more than the fence retention (see {@link RedisLocks.Builder#fenceRetention(Duration)}) and the
 * server does not lose the fence key's last write; across a failover, see the README's "Redis
 * deployments" for when a promoted replica's tokens exceed the old master's.
 */
public final class RedisLockClient implements LockClient, LeaderRecords.Source {

    private final RedisDeployment deployment;
    private final ReleaseChannels channels;
    private final RedisScripts scripts;
    private final LeaseEngine engine;
    private final RedisMutexProtocol mutex;
    private final RedisReadProtocol readers;
    private final RedisWriteProtocol writers;
    private final RedisSemaphores semaphores;
    private final RedisFairLockProtocol fair;
    private final Duration operationTimeout;
    /** The kinds again, on the replica-ack connection; opened on the first lock that asks for acknowledgements. */
    private final AckedKinds acked;
    private final Duration fenceRetention;
    private volatile boolean closed;
    private final String keyPrefix;
    private final RedisLeaderRecords leaderRecords;

    private static final Logger LOG = LoggerFactory.getLogger(RedisLockClient.class);
    /** Keys asked of each {@code SCAN} step (its {@code COUNT}): one bounded batch per round trip. */
    static final int SCAN_BATCH = 1_000;
    /** How long the audit record of a break ({@link LockKeys#broken()}) lives. */
    public static final Duration BREAK_AUDIT_RETENTION = Duration.ofHours(24);
    /** Longest reason accepted by {@link #breakLock(String, String)}, in characters. */
    public static final int MAX_REASON_LENGTH = 1_000;

    RedisLockClient(RedisDeployment deployment, LeaseEngine.Settings settings, Duration fenceRetention,
                    String keyPrefix) {
        this.keyPrefix = keyPrefix;
        this.deployment = deployment;
        this.scripts = new RedisScripts(deployment.shardedPubSub());
        this.operationTimeout = settings.operationTimeout();
        this.fenceRetention = fenceRetention;
        // Subscriptions outlive their last waiter by a few re-check periods: a lock that is handed
        // over again soon (the contended case) needs no new SUBSCRIBE.
        this.channels = new ReleaseChannels(deployment.pubSub(), deployment.describe(),
                settings.maxRecheck().multipliedBy(3));
        Duration waiterRegistration = settings.maxRecheck().multipliedBy(3).plus(settings.operationTimeout());
        this.engine = new LeaseEngine(settings, deployment.describe());
        RedisProtocol.Server server = new RedisProtocol.Server(deployment, scripts, channels, fenceRetention,
                waiterRegistration);
        this.mutex = new RedisMutexProtocol(server);
        this.readers = new RedisReadProtocol(server);
        this.writers = new RedisWriteProtocol(server);
        this.semaphores = new RedisSemaphores(deployment, scripts, channels, engine, deployment.describe(),
                fenceRetention, waiterRegistration, deployment.commandTimeout(), settings.operationTimeout());
        this.fair = new RedisFairLockProtocol(server);
        this.acked = new AckedKinds(server, settings.operationTimeout());
        this.leaderRecords = new RedisLeaderRecords(deployment, scripts, this::key);
    }

    /**
     * Leader records of {@link #leadership elections} on this deployment: a hash beside the
     * election's lock key ({@link LockKeys#leader()}), fenced by the term's token, expiring with
     * the term's ttl.
     */
    @Override
    public LeaderRecords leaderRecords() {
        return leaderRecords;
    }

    @Override
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        String key = key(name);
        return engine.lock(key, options, acked.protocol(mutex, options));
    }

    /**
     * The read-write lock {@code name}: many readers or one writer, and a waiting writer keeps new
     * readers out, so a stream of readers never starves it. Every lease of either lock is renewed,
     * lost and released like a mutex lease and carries a token from the name's one sequence, so a
     * writer's token exceeds every token issued before it, readers' included.
     *
     * <p>On the server the writer holds the lock key itself, so the write lock and {@link #lock}
     * of the same name exclude each other; readers are members of a sorted set beside it (holder
     * id -> lease expiry), which a plain mutex does not look at: do not mix the read lock and the
     * plain mutex on one name. A crashed reader blocks writers until its lease expires (at most
     * its ttl); a crashed waiting writer blocks new readers until its registration expires (a few
     * re-check periods plus the operation timeout). Writers are preferred: while writers keep
     * coming back to back, readers wait (the price of never starving a writer).
     *
     * <p>A read lease is never upgraded: see {@link ReadWriteLockPair} for the blocking acquires
     * that are refused with an {@link IllegalStateException} rather than left to wait for their
     * own thread.
     *
     * @throws IllegalArgumentException if the name is unusable or options is null
     * @throws dev.leasehold.LeaseholdException if this client is closed
     */
    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions options) {
        String key = key(name);
        return ReadWriteLockPair.of(engine, key, options, acked.protocol(readers, options),
                acked.protocol(writers, options));
    }

    /**
     * A semaphore of {@code permits} leases on {@code name}: each acquire takes one permit as a
     * lease of its own (its own token from the name's one sequence, its own renewal), and one
     * client's threads may hold several permits at once. A holder that dies gives its permit back
     * when its lease expires. Permits are members of the sorted set {@link LockKeys#permits()},
     * which also stores the number of permits while any lease is live; a name used as a semaphore and as
     * another kind at once shares only the token sequence and the waiters' wake-ups with it.
     *
     * <p>The number of permits must agree with the live leases of the name: this checks it once
     * (one round trip), and every acquire checks it again atomically with its grant, throwing
     * {@link dev.leasehold.PermitsMismatchException} if someone else took the name with another
     * number meanwhile.
     *
     * @throws IllegalArgumentException if the name is unusable, options is null, permits is outside
     *                                  [1, {@link DistributedSemaphore#MAX_PERMITS}], or live leases
     *                                  hold the name with another number of permits
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached for the check
     * @throws dev.leasehold.LeaseholdException if this client is closed
     */
    @Override
    public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
        if (options != null && options.replicaAck().isPresent()) {
            throw new IllegalArgumentException("withReplicaAck is not supported for semaphores yet; use a lock, a fair "
                    + "lock or a read-write lock, or options without withReplicaAck");
        }
        return semaphores.create(key(name), permits, options);
    }

    /**
     * A fair lock: exclusive, and granted in the order this server saw the acquisitions arrive,
     * across every client (not by client clocks). Every acquisition takes its place in the lock's
     * queue with its first attempt; a release hands the lock straight to the first live waiter and
     * notifies it, so a handoff costs no extra acquire. A waiter that stops trying (its process
     * died) keeps its place until its registration expires (three re-check intervals plus the
     * operation timeout, see {@link RedisLocks.Builder#maxRecheck(Duration)}), then is skipped; one
     * that dies after the lock was handed to it holds it until its ttl, like any holder that dies.
     * The lock key is the lock name, as for {@link #lock(String, LockOptions)}: a fair lock and a
     * mutex of the same name exclude each other, but mixing them gives no order between the two.
     *
     * @throws IllegalArgumentException if the name is unusable (see {@link LockKeys#of(String)})
     *                                  or options is null
     * @throws dev.leasehold.LeaseholdException if this client is closed
     */
    @Override
    public DistributedLock fairLock(String name, LockOptions options) {
        String key = key(name);
        return engine.lock(key, options, acked.protocol(fair, options));
    }

    /**
     * The Redis key of lock {@code name}: the client's key prefix (none by default) and the name.
     *
     * @throws IllegalArgumentException if the name is unusable or the key would share another
     *                                  lock's keys (see {@link LockKeys#of(String)})
     */
    private String key(String name) {
        String key = keyPrefix + Args.lockName(name);
        LockKeys.of(key);
        return key;
    }

    @Override
    public String describe() {
        return deployment.describe();
    }

    /**
     * Reads the state of a lock in one atomic step: holder (redacted), remaining ttl, last token,
     * live waiters, and a key of another type, if any.
     *
     * @throws IllegalArgumentException if the name is unusable
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached
     */
    public LockInfo inspect(String name) {
        engine.ensureOpen();
        LockKeys keys = LockKeys.of(key(name));
        try {
            List<Object> reply = scripts.inspect.<List<Object>>run(deployment.commands(), ScriptOutputType.MULTI,
                            new String[] {keys.lock(), keys.fence(), keys.waiters()})
                    .get(operationTimeout.toNanos(), TimeUnit.NANOSECONDS);
            String holder = (String) reply.get(0);
            long pttl = (Long) reply.get(1);
            String fence = (String) reply.get(2);
            String foreign = (String) reply.get(4);
            OptionalLong lastToken = OptionalLong.empty();
            Optional<String> foreignText = foreign.isEmpty() ? Optional.empty() : Optional.of(foreignKey(foreign));
            try {
                lastToken = fence.isEmpty() ? lastToken : OptionalLong.of(Long.parseLong(fence));
            } catch (NumberFormatException notACounter) {
                foreignText = Optional.of("key '" + keys.fence() + "' holds a value that is not a fencing counter (a"
                        + " decimal up to 2^63 - 1); acquires of this lock fail until it is deleted");
            }
            return new LockInfo(name,
                    holder.isEmpty() ? Optional.empty() : Optional.of(HolderIds.redact(holder)),
                    pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(),
                    lastToken, (Long) reply.get(3), foreignText);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RedisErrors.translate(deployment.describe(), "inspect of '" + name + "'", e);
        } catch (ExecutionException | TimeoutException e) {
            throw RedisErrors.translate(deployment.describe(), "inspect of '" + name + "'", e);
        }
    }

    /**
     * The locks held right now whose names match the glob {@code pattern} (Redis {@code MATCH}
     * syntax: {@code *}, {@code ?}, {@code [abc]}, backslash escapes), each with its holder
     * (redacted), remaining ttl, last token and live waiters, sorted by name. Walks the keyspace with
     * {@code SCAN ... COUNT} {@value #SCAN_BATCH}, never {@code KEYS}, so the server is never blocked
     * for long: each batch costs one {@code SCAN} and one script call that reads its candidates
     * atomically. Like any {@code SCAN}, the walk is not a snapshot: a lock taken or freed during it
     * may or may not appear.
     *
     * <p>A key counts as a lock when it holds a string that is a Leasehold holder id, or has a
     * fencing counter beside it; so the exclusive kinds are listed (mutex, fair lock, write lock, and
     * plain {@code SET NX} locks that share a name with them), read leases and semaphore permits
     * (members of a sorted set) are not.
     *
     * @throws IllegalArgumentException if pattern is null or empty
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached
     */
    public List<LockInfo> list(String pattern) {
        if (pattern == null || pattern.isEmpty()) {
            throw new IllegalArgumentException("pattern must not be null or empty; use \"*\" for every lock");
        }
        List<LockInfo> found = new ArrayList<>();
        // Under this client's key prefix, like its locks; the names found carry the prefix, as leases' do.
        ScanArgs args = ScanArgs.Builder.matches(keyPrefix + pattern).limit(SCAN_BATCH);
        KeyScanCursor<String> cursor = await(deployment.commands().scan(args), "the scan for '" + pattern + "'");
        while (true) {
            // On a Cluster one script call may only read one slot: one call per slot among the batch.
            cursor.getKeys().stream().collect(Collectors.groupingBy(deployment::scriptGroup)).values()
                    .forEach(sameSlot -> found.addAll(heldAmong(sameSlot)));
            if (cursor.isFinished()) {
                break;
            }
            cursor = await(deployment.commands().scan(cursor, args), "the scan for '" + pattern + "'");
        }
        found.sort(Comparator.comparing(LockInfo::name));
        return found;
    }

    /** One batch of list, all in one script group: the candidates that are held locks, read by one list.lua call. */
    private List<LockInfo> heldAmong(List<String> keys) {
        List<String> names = new ArrayList<>();
        List<String> scriptKeys = new ArrayList<>();
        for (String key : keys) {
            LockKeys lockKeys;
            try {
                lockKeys = LockKeys.of(Args.lockName(key));
            } catch (IllegalArgumentException notALockName) {
                continue; // an auxiliary key (e.g. {x}:fence), or a name no lock can have
            }
            names.add(key);
            scriptKeys.add(lockKeys.lock());
            scriptKeys.add(lockKeys.fence());
            scriptKeys.add(lockKeys.waiters());
        }
        if (names.isEmpty()) {
            return List.of();
        }
        List<Object> reply = await(scripts.list.<List<Object>>run(deployment.commands(), ScriptOutputType.MULTI,
                scriptKeys.toArray(String[]::new)), "the listing of locks");
        List<LockInfo> held = new ArrayList<>();
        for (int i = 0; i < reply.size(); i += 5) {
            String name = names.get(((Long) reply.get(i)).intValue() - 1);
            long pttl = (Long) reply.get(i + 2);
            String fence = (String) reply.get(i + 3);
            held.add(new LockInfo(name, Optional.of(HolderIds.redact((String) reply.get(i + 1))),
                    pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(),
                    fence.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(fence)),
                    (Long) reply.get(i + 4), Optional.empty()));
        }
        return held;
    }

    /**
     * Breaks the lock {@code name} as an administrator: deletes the current holder's key, whoever
     * holds it, and advances the fence, so every token issued from now on exceeds the broken
     * holder's (even if the fence key had expired); records who broke it and why in the hash
     * {@link LockKeys#broken()} for {@link #BREAK_AUDIT_RETENTION} and in a log line; and wakes
     * every waiter. All of it in one script call.
     *
     * <p>The broken holder is not told directly: a watchdog lease finds the key gone at its next
     * renewal (within a third of its ttl) and its {@link dev.leasehold.Lease#lost()} completes; a
     * fixed lease runs on until its local deadline. <b>Until then it believes it holds the lock</b>,
     * so a resource that does not check fencing tokens can see two writers; a guarded one refuses
     * the broken holder's writes as soon as the next holder's first write is admitted.
     *
     * <p>Only the lock key is broken: the exclusive kinds (mutex, fair lock, write lock, a plain
     * {@code SET NX} lock). Read leases and semaphore permits are not touched.
     *
     * @param reason why, for the audit record (required, at most {@value #MAX_REASON_LENGTH} characters)
     * @return what was broken, or empty if the lock was free (then nothing is written)
     * @throws IllegalArgumentException if the name is unusable, or reason is null, blank or too long
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached
     */
    public Optional<BrokenLock> breakLock(String name, String reason) {
        LockKeys keys = LockKeys.of(key(name));
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("reason must not be null or blank: say why the lock is broken");
        }
        if (reason.length() > MAX_REASON_LENGTH) {
            throw new IllegalArgumentException("reason must be at most " + MAX_REASON_LENGTH + " characters, got "
                    + reason.length());
        }
        String by = whoAmI();
        List<Object> reply = await(scripts.breakLock.<List<Object>>run(deployment.commands(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.broken()}, by, reason,
                Long.toString(fenceRetention.toMillis()), Long.toString(BREAK_AUDIT_RETENTION.toMillis()),
                keys.channel()), "the break of '" + name + "'");
        if ((Long) reply.get(0) == 0L) {
            return Optional.empty();
        }
        BrokenLock broken = new BrokenLock(name, HolderIds.redact((String) reply.get(1)),
                Long.parseLong((String) reply.get(2)), by, reason);
        LOG.warn("Lock '{}' broken by {}: holder {} deleted, fence advanced to {}; reason: {}",
                name, by, broken.holder(), broken.fence(), reason);
        return Optional.of(broken);
    }

    private static String whoAmI() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException | SecurityException unknown) {
            host = "unknown-host";
        }
        return System.getProperty("user.name", "unknown-user") + "@" + host;
    }

    private <T> T await(CompletionStage<T> reply, String operation) {
        try {
            return reply.toCompletableFuture().get(operationTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RedisErrors.translate(deployment.describe(), operation, e);
        } catch (ExecutionException | TimeoutException e) {
            throw RedisErrors.translate(deployment.describe(), operation, e);
        }
    }

    /** inspect.lua's {@code "<type> <key>"} in words. */
    private static String foreignKey(String typeAndKey) {
        int space = typeAndKey.indexOf(' ');
        return "key '" + typeAndKey.substring(space + 1) + "' holds a Redis " + typeAndKey.substring(0, space)
                + ", not a Leasehold value";
    }

    /** What the mutex's renewal batches cost so far: flushes, script groups (slots) touched, script calls. */
    RenewalBatch.Stats mutexRenewalStats() {
        return mutex.renewalStats();
    }

    /** Leases of this client that are held right now (not released, not lost). */
    public int heldLeases() {
        return engine.heldLeases();
    }

    /** Channels this client is subscribed to for waiters right now. */
    public int activeSubscriptions() {
        return channels.activeChannels();
    }

    /** Lock names on which this client has an acquisition queued, waiting or holding. */
    public int activeLockNames() {
        return engine.activeLockNames();
    }

    /** This client's acquisitions queued, waiting or holding on {@code name} (local queue length). */
    public int queuedAcquisitions(String name) {
        return engine.queuedAcquisitions(name);
    }

    /** Renewal ticks and waiter timers pending on this client's scheduler. */
    public int pendingTimers() {
        return engine.pendingTimers();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        engine.close();
        channels.close();
        acked.close();
        deployment.close();
    }

    @Override
    public String toString() {
        return "RedisLockClient[" + deployment.describe() + "]";
    }
}
