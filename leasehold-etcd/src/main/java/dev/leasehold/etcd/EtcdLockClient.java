package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.LockClient;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.LockOptions;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.engine.ReadWriteLockPair;
import dev.leasehold.etcd.internal.QueueKeys;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.LeaderRecords;
import dev.leasehold.engine.EngineSemaphore;
import dev.leasehold.spi.Args;
import dev.leasehold.etcd.internal.EtcdErrors;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link LockClient} on an etcd cluster. Create it with {@link EtcdLocks#connect(String)},
 * {@link EtcdLocks#using(Client)} or {@link EtcdLocks#builder()}. Thread-safe; share one per
 * application.
 *
 * <p><b>What it guarantees.</b> Mutual exclusion between holders whose leases are valid, decided by
 * etcd's consensus: a lock is granted by a linearizable transaction on a majority of members, so a
 * leader crash or a minority partition never grants it twice. Fencing tokens are the create
 * revisions of the holders' keys, strictly increasing per name across every kind. <b>What consensus
 * does not fix:</b> a holder that is paused (GC, stalled VM) or cut off past its lease's ttl has lost
 * the lock, and etcd gives it to the next waiter, while the paused holder may still believe it holds
 * it until its code runs again; its {@code lost()} completes at its local deadline, which falls before
 * the etcd lease can expire, but a write it already sent can still arrive late. Pass
 * {@link dev.leasehold.Lease#token()} to the resource and guard it
 * ({@link dev.leasehold.FenceGuard}).
 *
 * <p>Each acquisition has its own etcd lease (see {@link Acquisitions} for why), kept alive by the
 * engine's renewal; a waiter watches only the key ahead of it. Keys live under the key prefix
 * ({@link EtcdLocks.Builder#keyPrefix(String)}).
 */
public final class EtcdLockClient implements LockClient, LeaderRecords.Source {

    private final Client client;
    private final boolean ownsClient;
    private final String description;
    private final LeaseEngine engine;
    private final Acquisitions acquisitions;
    private final EtcdQueueProtocol mutex;
    private final EtcdQueueProtocol fair;
    private final EtcdQueueProtocol readers;
    private final EtcdQueueProtocol writers;
    /**
     * One protocol per number of permits, shared by every semaphore with that number: the engine
     * keys its local bookkeeping (queues, Java views) by protocol and name.
     */
    private final Map<Integer, EtcdQueueProtocol> permitProtocols = new ConcurrentHashMap<>();
    private final String keyPrefix;
    private final Duration operationTimeout;
    private final EtcdLeaderRecords leaderRecords;
    private volatile boolean closed;

    EtcdLockClient(Client client, boolean ownsClient, String description, String keyPrefix,
                   LeaseEngine.Settings settings) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.description = description;
        this.engine = new LeaseEngine(settings, description);
        this.keyPrefix = keyPrefix;
        this.operationTimeout = settings.operationTimeout();
        this.acquisitions = new Acquisitions(client, settings.operationTimeout());
        this.mutex = new EtcdQueueProtocol(client, acquisitions, keyPrefix, "lock", QueueRule.EXCLUSIVE,
                Admission.EXCLUSIVE, description);
        this.fair = new EtcdQueueProtocol(client, acquisitions, keyPrefix, "fair_lock", QueueRule.EXCLUSIVE,
                Admission.SHARED, description);
        this.readers = new EtcdQueueProtocol(client, acquisitions, keyPrefix, "read", QueueRule.READ,
                Admission.SHARED, description);
        this.writers = new EtcdQueueProtocol(client, acquisitions, keyPrefix, "write", QueueRule.EXCLUSIVE,
                Admission.EXCLUSIVE, description);
        this.leaderRecords = new EtcdLeaderRecords(client, keyPrefix, description);
    }

    /**
     * Leader records of {@link #leadership elections}: a key beside the election's queue on the
     * leader's own etcd lease, so it goes with the term.
     */
    @Override
    public LeaderRecords leaderRecords() {
        return leaderRecords;
    }

    @Override
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    /**
     * The exclusive lock {@code name}. Acquisitions of every client are queued in etcd in arrival
     * order; one client's own threads take turns locally, so a client sends one acquisition at a
     * time per name.
     *
     * @throws IllegalArgumentException if the name is unusable or options is null
     * @throws dev.leasehold.LockClientClosedException if this client is closed
     */
    @Override
    public DistributedLock lock(String name, LockOptions options) {
        return engine.lock(name, options, mutex);
    }

    /**
     * A fair lock: exclusive, granted in the order etcd created the acquisitions' keys (one
     * linearizable order across every client and thread). It shares its queue with
     * {@link #lock(String, LockOptions)} and the write lock of the same name: they exclude each
     * other. A dead waiter's key expires with its lease (at most its ttl, rounded up to seconds),
     * and the queue moves on.
     *
     * @throws IllegalArgumentException if the name is unusable or options is null
     * @throws dev.leasehold.LockClientClosedException if this client is closed
     */
    @Override
    public DistributedLock fairLock(String name, LockOptions options) {
        return engine.lock(name, options, fair);
    }

    /**
     * The read-write lock {@code name}: many readers or one writer, in arrival order, so a writer
     * waits only for the readers that came before it and keeps later readers out (no writer
     * starvation). The write lock shares its queue with {@link #lock(String, LockOptions)} of the
     * same name. Tokens of both sides come from the one revision counter.
     *
     * @throws IllegalArgumentException if the name is unusable or options is null
     * @throws dev.leasehold.LockClientClosedException if this client is closed
     */
    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions options) {
        return ReadWriteLockPair.of(engine, name, options, readers, writers);
    }

    /**
     * A semaphore of {@code permits} leases on {@code name}: each acquire takes one permit as a
     * lease of its own (its own etcd lease and token from the revision counter). Permits are granted
     * in arrival order: the first {@code permits} keys of the name's permit queue hold, later ones wait
     * and watch the queue (with one permit, only the permit before them). A holder that dies gives
     * its permit back when its etcd lease expires (its ttl rounded up to seconds). Permit keys share the name's queue with its locks:
     * a permit and a lock do not exclude each other, but grants follow the queue's order across both
     * ({@link QueueRule}), so a permit waiting for a free permit delays a later lock of the name, and
     * every lease's token exceeds every token granted before it.
     *
     * <p>The number of permits is in each permit's key: an acquire that finds a live permit taken
     * under another number fails with {@link PermitsMismatchException} (its key is removed again);
     * this checks it once (one round trip) at creation.
     *
     * @throws IllegalArgumentException if the name is unusable, options is null, permits is outside
     *                                  [1, {@link DistributedSemaphore#MAX_PERMITS}], or live permits
     *                                  hold the name with another number
     * @throws dev.leasehold.LockUnavailableException if the cluster cannot be reached for the check
     * @throws dev.leasehold.LockClientClosedException if this client is closed
     */
    @Override
    public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
        Args.permits(permits);
        EtcdQueueProtocol protocol = permitProtocols.computeIfAbsent(permits, n -> new EtcdQueueProtocol(client,
                acquisitions, keyPrefix, "semaphore", QueueRule.permits(n), Admission.SHARED, description));
        DistributedLock permit = engine.lock(name, options, protocol);
        EngineSemaphore semaphore = new EngineSemaphore(permit, permits, () -> available(permit.name(), permits));
        try {
            semaphore.available();
        } catch (PermitsMismatchException mismatch) {
            throw new IllegalArgumentException(mismatch.getMessage(), mismatch);
        }
        return semaphore;
    }

    /** Permits free now: permits minus the live permit keys of the name, checked against their number. */
    private int available(String name, int permits) {
        engine.ensureOpen();
        QueueKeys queue = QueueKeys.of(keyPrefix, name);
        List<KeyValue> keys = await(client.getKVClient().get(queue.directory(),
                GetOption.builder().isPrefix(true).withKeysOnly(true).build()), "the count of permits of '"
                + name + "'").getKvs();
        int live = 0;
        for (KeyValue key : keys) {
            if (queue.kindOf(key.getKey()) == QueueKeys.PERMIT) {
                int heldWith = queue.permitsOf(key.getKey());
                if (heldWith != permits) {
                    throw new PermitsMismatchException(name, heldWith, permits);
                }
                live++;
            }
        }
        return Math.max(0, permits - live);
    }

    /**
     * Reads the lock's queue: its oldest holder (redacted), how many hold it, the oldest holder's
     * token and remaining lease, and the waiters behind. One range request, plus one lease lookup
     * when held.
     *
     * @throws IllegalArgumentException if the name is unusable
     * @throws dev.leasehold.LockUnavailableException if the cluster cannot be reached
     * @throws dev.leasehold.LockClientClosedException if this client is closed
     */
    public EtcdLockInfo inspect(String name) {
        engine.ensureOpen();
        QueueKeys queue = QueueKeys.of(keyPrefix, Args.lockName(name));
        String operation = "the inspection of '" + name + "'";
        List<KeyValue> locks = await(client.getKVClient().get(queue.directory(), GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build()), operation)
                .getKvs().stream().filter(key -> queue.kindOf(key.getKey()) != QueueKeys.PERMIT).toList();
        if (locks.isEmpty()) {
            return new EtcdLockInfo(name, Optional.empty(), 0, OptionalLong.empty(), Optional.empty(), 0);
        }
        KeyValue oldest = locks.get(0);
        int holders = 1;
        if (queue.kindOf(oldest.getKey()) == QueueKeys.SHARED) {
            while (holders < locks.size() && queue.kindOf(locks.get(holders).getKey()) == QueueKeys.SHARED) {
                holders++;
            }
        }
        long ttl = await(client.getLeaseClient().timeToLive(oldest.getLease(), LeaseOption.DEFAULT), operation).getTTL();
        return new EtcdLockInfo(name, Optional.of(HolderIds.redact(oldest.getValue().toString(StandardCharsets.UTF_8))),
                holders, OptionalLong.of(oldest.getCreateRevision()),
                ttl >= 0 ? Optional.of(Duration.ofSeconds(ttl)) : Optional.empty(), locks.size() - holders);
    }

    private <T> T await(CompletableFuture<T> call, String operation) {
        try {
            return call.get(operationTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw EtcdErrors.translate(description, operation, e);
        } catch (ExecutionException | TimeoutException e) {
            throw EtcdErrors.translate(description, operation, e);
        }
    }

    @Override
    public String describe() {
        return description;
    }

    /** Leases of this client that are held right now (not released, not lost). */
    public int heldLeases() {
        return engine.heldLeases();
    }

    /** Acquisitions (held or waiting) that still have an etcd lease of this client. */
    public int liveAcquisitions() {
        return acquisitions.size();
    }

    /**
     * Ends this client's leases (revoking their etcd leases, so their keys go at once), then closes
     * the jetcd client if this client created it; a client given to {@link EtcdLocks#using(Client)}
     * stays open. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        engine.close();
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "EtcdLockClient[" + description + "]";
    }
}
