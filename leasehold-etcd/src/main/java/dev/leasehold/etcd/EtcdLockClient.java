package dev.leasehold.etcd;

import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.engine.LeaseEngine;
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
 * <p>A watchdog lease's key hangs on the client's session lease of its ttl (one etcd lease per
 * client and ttl, as etcd's own {@code concurrency.Session}), kept alive by the engine's renewals; a
 * fixed lease has an etcd lease of its own, which expires on the server when its time is up (see
 * {@link Acquisitions}). A lost session loses every lease on it, each holder's {@code lost()}
 * completing. A waiter watches only the key ahead of it. Keys live under the key prefix
 * ({@link EtcdLocks.Builder#keyPrefix(String)}).
 *
 * <p><b>Kinds.</b> Every kind of one name queues in one directory of keys, ordered by create
 * revision, and core's {@link dev.leasehold.spi.QueueRule} decides: the mutex (one acquisition per
 * client reaches etcd at a time; the client's others take turns locally), the fair lock (every
 * acquisition queues in etcd: granted in etcd's order across every client and thread), the
 * read-write lock (a writer waits only for the readers before it and keeps later readers out) and
 * the semaphore (each permit a lease of its own; the number of permits is in each permit's key, and
 * {@link #semaphore(String, int, LockOptions)} checks it once at creation). The lock family and the
 * semaphore family of one name do not exclude each other, but grants follow the queue's order across
 * both, so a permit waiting for a free permit delays a later lock of the name. A dead waiter's key
 * expires with its etcd lease (its ttl rounded up to seconds) when its client is gone, and the
 * queue moves on.
 *
 * <p><b>Diagnostics.</b> {@link #inspect(String)} reads the name's queue in one range request: the
 * holders (readers, permits, or one exclusive holder, which reads as
 * {@link dev.leasehold.LockKind#MUTEX}, since keys do not tell the mutex, the fair lock and the write
 * lock apart), the waiters, the oldest holder's etcd lease TTL, and the last token, the newest
 * holder's create revision (exactly the last token issued; empty when free, since etcd keeps nothing
 * of a deleted key). {@link #list(String)} finds held names by glob from one range request over the
 * key prefix. {@link #breakLock(String, String)} revokes the queue's own etcd leases and deletes
 * the rest of the queue, in one transaction unless a key changed since its read, so every lease granted after it has a greater token than the broken
 * holder's (waiters queue again). Everything else of the {@link LockClient} API is core's
 * {@link EngineLockClient}; this class adds {@link #liveAcquisitions()}.
 */
public final class EtcdLockClient extends EngineLockClient {

    private final EtcdBackend backend;

    EtcdLockClient(EtcdBackend backend, LeaseEngine.Settings settings) {
        super(backend, settings);
        this.backend = backend;
    }

    /** Acquisitions (held or waiting) that still have an etcd lease of this client. */
    public int liveAcquisitions() {
        return backend.liveAcquisitions();
    }
}
