package dev.leasehold.etcd;

import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.etcd.internal.QueueKeys;
import dev.leasehold.spi.InspectedBackend;
import dev.leasehold.spi.KindProtocols;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;

import java.time.Duration;
import java.util.List;

/**
 * The etcd backend behind an {@link EtcdLockClient}: one {@link EtcdQueueProtocol} per lock kind (one
 * per number of permits for semaphores) and lease mode (watchdog keys on the client's
 * {@link Sessions}, fixed leases on leases of their own), sharing the client's {@link Acquisitions};
 * the {@link EtcdInspector}; leader records by {@link EtcdLeaderRecords}: a key per term beside the
 * election's queue, on the etcd lease of the leader's key, deleted when the term ends; and the end of
 * the sessions and of the jetcd client.
 */
final class EtcdBackend extends InspectedBackend<EtcdInspector> {

    private final Client client;
    private final boolean ownsClient;
    private final String description;
    private final String keyPrefix;
    private final Duration operationTimeout;
    private final Sessions sessions;
    private final Acquisitions acquisitions;
    /** The kinds whose keys go on the client's session leases (watchdog leases). */
    private final KindProtocols<EtcdQueueProtocol> sessionKinds;
    /** The kinds whose keys go on leases of their own (fixed leases). */
    private final KindProtocols<EtcdQueueProtocol> ownLeaseKinds;

    EtcdBackend(Client client, boolean ownsClient, String description, String keyPrefix, Duration operationTimeout) {
        super(new EtcdInspector(client, keyPrefix, description, operationTimeout),
                new EtcdLeaderRecords(client, keyPrefix, description));
        this.client = client;
        this.ownsClient = ownsClient;
        this.description = description;
        this.keyPrefix = keyPrefix;
        this.operationTimeout = operationTimeout;
        this.sessions = new Sessions(client);
        this.acquisitions = new Acquisitions(client, sessions, operationTimeout);
        this.sessionKinds = new KindProtocols<>(kind -> newProtocol(kind, true));
        this.ownLeaseKinds = new KindProtocols<>(kind -> newProtocol(kind, false));
    }

    @Override
    public String describe() {
        return description;
    }

    /**
     * Every kind, in one queue of keys per name; a watchdog lease's key goes on the client's session
     * lease of its ttl, a fixed lease's on a lease of its own (which must end on the server when its
     * time is up, while the session lives on).
     */
    @Override
    public EtcdQueueProtocol protocol(LockKind kind, LockOptions options) {
        return (options.isWatchdog() ? sessionKinds : ownLeaseKinds).of(kind);
    }

    private EtcdQueueProtocol newProtocol(LockKind kind, boolean shared) {
        return new EtcdQueueProtocol(client, acquisitions, keyPrefix, kind, shared, description);
    }

    /**
     * Permits free now: {@code permits} minus the live permit keys of the name (held or queued), each
     * checked against the number. One range request.
     */
    @Override
    public int availablePermits(String name, int permits) {
        QueueKeys queue = QueueKeys.of(keyPrefix, name);
        List<KeyValue> keys = inspecting().await(client.getKVClient().get(queue.directory(),
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

    /** Acquisitions (held or waiting) that still have an etcd lease of this client. */
    int liveAcquisitions() {
        return acquisitions.size();
    }

    /**
     * Stops deleting failed releases' keys, revokes the session leases (waiting at most the
     * operation timeout; one not revoked expires within its ttl), then closes the jetcd client if
     * the lock client created it; a client given to {@link EtcdLocks#using} stays open.
     */
    @Override
    public void close() {
        acquisitions.close();
        sessions.close(operationTimeout.toMillis());
        if (ownsClient) {
            client.close();
        }
    }
}
