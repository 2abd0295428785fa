package dev.leasehold.etcd;

import dev.leasehold.BrokenLock;
import dev.leasehold.LockInfo;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.etcd.internal.EtcdErrors;
import dev.leasehold.etcd.internal.QueueKeys;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.Glob;
import dev.leasehold.spi.Inspector;
import dev.leasehold.spi.QueueEntry;
import dev.leasehold.spi.QueueRule;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * What an etcd client can tell about locks it did not take, read from the queues of keys (see
 * {@link QueueKeys}); every call is bounded by the operation timeout.
 *
 * <p><b>inspect</b> reads a name's queue in one range request and applies core's {@link QueueRule}:
 * the holders are the granted head of the queue (readers, permits, or one exclusive holder; a lease
 * kept by {@link dev.leasehold.LockOptions#holdAtLeast} keeps its key, so it counts), the waiters the
 * rest. Keys do not tell a mutex, a fair lock and a write lock apart (they exclude each other alike),
 * so an exclusive holder's kind reads {@link dev.leasehold.LockKind#MUTEX}. {@code remaining} is the
 * oldest holder's etcd lease TTL (one more request). The last token is the newest holder's create
 * revision, which is exactly the last token issued for the name, since grants follow the queue's
 * order; a free name has no keys, and etcd keeps nothing of the tokens it issued, so it is empty then.
 */
final class EtcdInspector implements Inspector {

    private static final Logger LOG = LoggerFactory.getLogger(EtcdInspector.class);

    /** etcd's default limit of operations in one transaction ({@code --max-txn-ops}). */
    private static final int MAX_TXN_OPS = 128;

    private static final GetOption QUEUE_ORDER = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .build();

    /** A name's Leasehold keys in queue order, how many of them hold, and how many keys are not Leasehold's. */
    private record Queue(List<KeyValue> keys, int granted, int foreign) {

        List<KeyValue> holders() {
            return keys.subList(0, granted);
        }
    }

    private final Client client;
    private final String keyPrefix;
    private final String description;
    private final Duration operationTimeout;

    EtcdInspector(Client client, String keyPrefix, String description, Duration operationTimeout) {
        this.client = client;
        this.keyPrefix = keyPrefix;
        this.description = description;
        this.operationTimeout = operationTimeout;
    }

    /**
     * One snapshot of {@code name}: one range request, plus one lease lookup when held.
     *
     * @throws dev.leasehold.LockUnavailableException if the cluster cannot be reached in time
     */
    @Override
    public LockInfo inspect(String name) {
        QueueKeys keys = QueueKeys.of(keyPrefix, name);
        String operation = "the inspection of '" + name + "'";
        return snapshot(name, queue(name, keys, read(keys.directory(), operation).getKvs()), operation);
    }

    /**
     * The names matching {@code pattern} that are held now, from one range request over the key
     * prefix (one instant for every name), plus one lease lookup per held name.
     */
    @Override
    public List<LockInfo> list(String pattern) {
        Glob glob = Glob.of(pattern);
        String operation = "the listing of locks";
        Map<String, List<KeyValue>> byName = new LinkedHashMap<>();
        for (KeyValue key : read(ByteSequence.from(keyPrefix, StandardCharsets.UTF_8), operation).getKvs()) {
            QueueKeys.nameOf(keyPrefix, key.getKey()).filter(glob::matches)
                    .ifPresent(name -> byName.computeIfAbsent(name, ignored -> new ArrayList<>()).add(key));
        }
        List<LockInfo> held = new ArrayList<>();
        byName.keySet().stream().sorted().forEach(name -> {
            Queue queue = queue(name, QueueKeys.of(keyPrefix, name), byName.get(name));
            if (queue.granted() > 0) {
                held.add(snapshot(name, queue, operation));
            }
        });
        return held;
    }

    /**
     * Revokes the etcd leases that are the own leases of keys in the name's queue (a fixed lease's, a
     * kept lease's; this deletes those keys, and such a broken holder's next keep-alive fails), then
     * deletes every key read that is left, the ones on a client's session lease included, in one
     * transaction (one per key, newest first, if one of them changed since the read: each delete is
     * guarded on the create revision read, since a client reuses a deleted key's name), the session
     * staying, since other locks' keys of its client share it (a broken holder's next renewal finds
     * its key gone), and reports as the fence the revision at which the queue was read. That is an
     * honest break because
     * tokens are create revisions: every key created up to that revision was in the queue and is gone
     * now, and every key created later has a greater create revision, so every lease
     * granted after the break has a greater token than any broken one. Waiters lose their place: each
     * finds its key or its etcd lease gone at its next attempt and queues again with a new key (so with
     * a token past the fence), in the order those attempts reach etcd; one granted in the instant
     * between the read and the break loses that lease too.
     *
     * <p>The broken holders are not told directly: a watchdog lease finds its etcd lease gone at its
     * next renewal (within a third of its ttl) and its {@link dev.leasehold.Lease#lost()} completes; a
     * fixed lease runs on until its local deadline. Until then it believes it holds the lock, so writes
     * must go through a {@link dev.leasehold.FenceGuard}. Who broke it and why is logged at WARN.
     *
     * @return the oldest broken holder and the fence; empty if nobody held the name
     * @throws IllegalArgumentException if the reason is blank or too long
     */
    @Override
    public Optional<BrokenLock> breakLock(String name, String reason) {
        Args.breakReason(reason);
        QueueKeys keys = QueueKeys.of(keyPrefix, name);
        String operation = "the break of '" + name + "'";
        GetResponse read = read(keys.directory(), operation);
        Queue queue = queue(name, keys, read.getKvs());
        if (queue.granted() == 0) {
            return Optional.empty();
        }
        List<KeyValue> newestFirst = new ArrayList<>(queue.keys());
        Collections.reverse(newestFirst);
        deleteQueue(keys, newestFirst, operation);
        String by = BrokenLock.operator();
        BrokenLock broken = new BrokenLock(name, holderOf(queue.keys().get(0)), read.getHeader().getRevision(), by,
                reason);
        LOG.warn("Lock '{}' broken by {}: {} holder(s) and {} waiter(s) deleted, fence {}; reason: {}", name, by,
                queue.granted(), queue.keys().size() - queue.granted(), broken.fence(), reason);
        return Optional.of(broken);
    }

    /**
     * The deletes of a break: {@code newestFirst}, the queue as read, deleted (see {@link #breakLock}).
     */
    void deleteQueue(QueueKeys keys, List<KeyValue> newestFirst, String operation) {
        // Leases first, newest first, one at a time: a revocation deletes the lease's key with it, so no
        // waiter can wake to its key gone while its old lease still lives, put the key back with that
        // lease, be granted and then lose the grant to this break.
        long[] ownLeases = newestFirst.stream()
                .filter(key -> key.getLease() != 0 && QueueKeys.namedByOwnLease(key.getKey(), key.getLease()))
                .mapToLong(KeyValue::getLease).distinct().toArray();
        for (long lease : ownLeases) {
            await(revoke(lease), operation);
        }
        // Then every key read that is still there, newest first: no older key outlives a newer one.
        // A key its holder moved to another lease meanwhile (an extension, a hold-at-least release)
        // outlived its old lease's revocation, so the queue is read again rather than trusted.
        List<KeyValue> left = newestFirst;
        if (ownLeases.length > 0) {
            Set<Long> standing = read(keys.directory(), operation).getKvs().stream()
                    .map(KeyValue::getCreateRevision).collect(Collectors.toSet());
            left = newestFirst.stream().filter(key -> standing.contains(key.getCreateRevision())).toList();
        }
        deleteUnchanged(left, operation);
    }

    /**
     * Deletes {@code keys}, in order, each only while it is the key that was read (same create
     * revision), in transactions of at most etcd's default limit of operations: all in one for any
     * usual queue. The guard matters because a client reuses a key's name once it deleted the key
     * ({@link KeyNumbers}): a name read before may meanwhile name a newer acquisition, whose token is
     * above the fence and whose key a break must not delete.
     */
    void deleteUnchanged(List<KeyValue> keys, String operation) {
        for (int from = 0; from < keys.size(); from += MAX_TXN_OPS) {
            List<KeyValue> chunk = keys.subList(from, Math.min(keys.size(), from + MAX_TXN_OPS));
            TxnResponse all = await(client.getKVClient().txn().If(chunk.stream().map(EtcdInspector::unchanged)
                    .toArray(Cmp[]::new)).Then(chunk.stream().map(EtcdInspector::delete).toArray(Op[]::new)).commit(),
                    operation);
            if (!all.isSucceeded()) {
                for (KeyValue key : chunk) {
                    await(client.getKVClient().txn().If(unchanged(key)).Then(delete(key)).commit(), operation);
                }
            }
        }
    }

    /** The guard of a break's delete: the key is still the one read, not a newer acquisition's of the same name. */
    private static Cmp unchanged(KeyValue key) {
        return new Cmp(key.getKey(), Cmp.Op.EQUAL, CmpTarget.createRevision(key.getCreateRevision()));
    }

    private static Op delete(KeyValue key) {
        return Op.delete(key.getKey(), DeleteOption.DEFAULT);
    }

    /** Revokes etcd lease {@code id}; one already expired is fine. */
    private CompletableFuture<Void> revoke(long id) {
        return client.getLeaseClient().revoke(id).handle((ignored, error) -> {
            if (error != null && !EtcdErrors.isLeaseNotFound(error)) {
                throw EtcdErrors.translate(description, "the revocation of a broken lease", error);
            }
            return null;
        });
    }

    private Queue queue(String name, QueueKeys keys, List<KeyValue> listed) {
        List<KeyValue> ours = new ArrayList<>();
        List<QueueEntry> entries = new ArrayList<>();
        for (KeyValue key : listed) {
            keys.entryOf(key.getKey()).ifPresent(entry -> {
                ours.add(key);
                entries.add(entry);
            });
        }
        return new Queue(ours, QueueRule.grantedPrefix(name, entries), listed.size() - ours.size());
    }

    private LockInfo snapshot(String name, Queue queue, String operation) {
        Optional<String> foreign = queue.foreign() == 0 ? Optional.empty()
                : Optional.of(queue.foreign() + " key(s) under the lock's directory that Leasehold did not write");
        long waiters = queue.keys().size() - queue.granted();
        if (queue.granted() == 0) {
            return new LockInfo(name, Optional.empty(), List.of(), Optional.empty(), OptionalLong.empty(), waiters,
                    foreign);
        }
        KeyValue oldest = queue.keys().get(0);
        QueueKeys keys = QueueKeys.of(keyPrefix, name);
        long ttl = await(client.getLeaseClient().timeToLive(oldest.getLease(), LeaseOption.DEFAULT), operation).getTTL();
        return new LockInfo(name, Optional.of(keys.entry(oldest.getKey()).reportedKind()),
                queue.holders().stream().map(EtcdInspector::holderOf).toList(),
                ttl >= 0 ? Optional.of(Duration.ofSeconds(ttl)) : Optional.empty(),
                queue.holders().stream().mapToLong(KeyValue::getCreateRevision).max(), waiters, foreign);
    }

    private static String holderOf(KeyValue key) {
        return HolderIds.redact(key.getValue().toString(StandardCharsets.UTF_8));
    }

    private GetResponse read(ByteSequence prefix, String operation) {
        return await(client.getKVClient().get(prefix, QUEUE_ORDER), operation);
    }

    <T> T await(CompletableFuture<T> call, String operation) {
        try {
            return call.get(operationTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw EtcdErrors.translate(description, operation, e);
        } catch (ExecutionException | TimeoutException e) {
            throw EtcdErrors.translate(description, operation, e);
        }
    }
}
