package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.engine.ReadWriteLockPair;
import dev.leasehold.etcd.internal.QueueKeys;
import dev.leasehold.spi.Admission;
import io.etcd.jetcd.Client;

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
public final class EtcdLockClient implements LockClient {

    private final Client client;
    private final boolean ownsClient;
    private final String description;
    private final LeaseEngine engine;
    private final Acquisitions acquisitions;
    private final EtcdQueueProtocol mutex;
    private final EtcdQueueProtocol fair;
    private final EtcdQueueProtocol readers;
    private final EtcdQueueProtocol writers;
    private volatile boolean closed;

    EtcdLockClient(Client client, boolean ownsClient, String description, String keyPrefix,
                   LeaseEngine.Settings settings) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.description = description;
        this.engine = new LeaseEngine(settings, description);
        this.acquisitions = new Acquisitions(client);
        this.mutex = new EtcdQueueProtocol(client, acquisitions, keyPrefix, QueueKeys.EXCLUSIVE, Admission.EXCLUSIVE,
                description);
        this.fair = new EtcdQueueProtocol(client, acquisitions, keyPrefix, QueueKeys.EXCLUSIVE, Admission.SHARED,
                description);
        this.readers = new EtcdQueueProtocol(client, acquisitions, keyPrefix, QueueKeys.SHARED, Admission.SHARED,
                description);
        this.writers = new EtcdQueueProtocol(client, acquisitions, keyPrefix, QueueKeys.EXCLUSIVE, Admission.EXCLUSIVE,
                description);
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
