package dev.leasehold.etcd;

import dev.leasehold.LockKind;
import dev.leasehold.etcd.internal.QueueKeys;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.QueueEntry;
import dev.leasehold.spi.QueueKindProtocol;
import dev.leasehold.spi.QueueRule;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.Wake;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.TxnOption;
import io.etcd.jetcd.options.WatchOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One lock kind on etcd, as a rule over a queue of keys ordered by create revision: every
 * acquisition puts one key under the lock name's directory (see {@link QueueKeys}), attached to the
 * client's session lease of its ttl (a watchdog lease) or to an etcd lease of its own (a fixed lease,
 * see {@link Acquisitions}), and holds the lock when every key ahead of it holds and none of them excludes it
 * (core's {@link QueueRule}): an exclusive key (mutex, fair lock, write lock) is excluded by any lock key, a
 * read key only by an exclusive one, a semaphore permit by its number of permits held.
 * A blocked lock acquisition watches the nearest blocking key ahead of it for its deletion (release,
 * expiry or revocation), so a release wakes one waiter, not a herd; a blocked permit of a
 * semaphore with several permits watches the whole queue, since any earlier permit's release frees
 * a place. The token is the key's create
 * revision, which etcd's whole keyspace draws from one increasing counter: every later holder of the
 * name, of any kind, gets a greater one.
 *
 * <p>An attempt is safe to repeat, which jetcd does on its own after a connection fails
 * ({@link TxnOption.Builder#withAutoRetry()}): the key is named by the acquisition's etcd lease (and
 * its number on a session lease) and created only if absent ({@code create_revision == 0}), with the acquisition's holder id as value; a
 * repeated attempt finds that key and takes its place, so one acquisition never has two keys.
 *
 * <p>Round trips of a watchdog lease: every attempt is one {@code Txn}; only when the session's
 * latest grant or confirmed keep-alive leaves less than two thirds of the ttl is a
 * {@code LeaseKeepAlive} of the session (confirmed by a keys-only {@code Range}) sent together with
 * it. The engine counts the lease no longer than the session is known to live on the servers
 * ({@link #grantedFor}); the renewals of one batch on one session share one read of their keys (a
 * {@code Range}, or a read-only {@code Txn} for several), preceded by one {@code LeaseKeepAlive} of
 * the session when it is last confirmed more than a third of the ttl ago ({@link KeepAlives}); a
 * release one {@code Txn} (a delete guarded on the holder id); a release within hold-at-least a
 * {@code LeaseGrant} and a {@code Txn}; the client's first acquisition of a ttl also a
 * {@code LeaseGrant} for the session; a waiter whose one blocker is deleted holds after one
 * keys-only {@code Range} of its own key (see {@code handOff}). A fixed lease's first attempt is a {@code LeaseGrant} and
 * one {@code Txn}, its release one {@code LeaseRevoke}, which deletes the key. The attempts on one
 * session that the client sends while one is on the wire share one {@code Txn}, and so do its
 * releases ({@link QueueWrites}): one consensus round for many.
 *
 * <p>A lost session (its lease expired or revoked on the server) loses every lease on it. A
 * keep-alive that finds the session gone tells every lease on it at once, through its
 * {@link Attempt.Acquired#lossSignal()}. A renewal sent without a keep-alive (the session was
 * confirmed less than a third of the ttl ago) only reads its own key: finding it gone, that lease's
 * renewal is refused, and the other leases on the session learn at their own next renewal, within
 * a third of the ttl and before their local deadlines, which never outlast the session's confirmed bound.
 */
final class EtcdQueueProtocol extends QueueKindProtocol {

    /** The read of a waiter's own key on a handoff: its create revision, without the value. */
    private static final GetOption OWN_KEY = GetOption.builder().withKeysOnly(true).build();

    private final Client client;
    private final Acquisitions acquisitions;
    private final String keyPrefix;
    /** Whether keys go on the client's session leases (watchdog leases) rather than leases of their own. */
    private final boolean shared;
    /** The tag of this kind's keys ({@link QueueKeys#tag}). */
    private final String tag;

    /**
     * @param kind   the lock kind this protocol serves
     * @param shared whether its keys go on the client's session leases (watchdog leases)
     */
    EtcdQueueProtocol(Client client, Acquisitions acquisitions, String keyPrefix, LockKind kind, boolean shared,
                      String description) {
        super(description, kind);
        this.client = client;
        this.acquisitions = acquisitions;
        this.keyPrefix = keyPrefix;
        this.shared = shared;
        this.tag = QueueKeys.tag(QueueEntry.of(kind));
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        QueueKeys queue = QueueKeys.of(keyPrefix, request.name());
        return acquisitions.withLease(request.holder(), queue, tag, request.ttl(), shared,
                acquisition -> enqueue(queue, acquisition, request.holder())
                        .thenApply(response -> decide(queue, request, acquisition, response)),
                EtcdQueueProtocol::discard);
    }

    /** Ends the watch of an attempt made with a lease that turned out to have expired. */
    private static void discard(Attempt attempt) {
        if (attempt instanceof Attempt.Held held && held.wake() instanceof CompletableFuture<Wake> wake) {
            wake.cancel(false);
        }
    }

    /** Creates the key if absent and reads the queue, in one transaction ({@link QueueWrites#enqueue}). */
    private CompletableFuture<QueueWrites.Enqueued> enqueue(QueueKeys queue, Acquisitions.Acquisition acquisition,
                                                            String holder) {
        return acquisitions.writes().enqueue(acquisition.key(), Acquisitions.value(holder), acquisition.leaseId(),
                queue.directory(), acquisition.session() != null);
    }

    private Attempt decide(QueueKeys queue, AcquireRequest request, Acquisitions.Acquisition acquisition,
                           QueueWrites.Enqueued response) {
        String name = request.name();
        String holder = request.holder();
        ByteSequence key = acquisition.key();
        List<KeyValue> keys = response.queue();
        int position = 0;
        while (position < keys.size() && !keys.get(position).getKey().equals(key)) {
            position++;
        }
        if (position == keys.size()) {
            throw new IllegalStateException("etcd key " + key + " of this acquisition is missing from its queue");
        }
        if (!response.created() && !keys.get(position).getValue().equals(Acquisitions.value(holder))) {
            throw new IllegalStateException("etcd key " + key + " of this acquisition holds another value; "
                    + "something else writes under the key prefix");
        }
        acquisition.created().set(keys.get(position).getCreateRevision());
        // Keys behind this one cannot change its decision: only those up to it are read.
        List<QueueEntry> entries = keys.subList(0, position + 1).stream().map(kv -> queue.entry(kv.getKey())).toList();
        QueueRule.Decision decision = QueueRule.decide(name, entries, position);
        if (decision.granted()) {
            return new Attempt.Acquired(keys.get(position).getCreateRevision(), acquisition.lost());
        }
        long from = response.revision() + 1;
        if (decision.watchesWholeQueue()) {
            return new Attempt.Held(null, retryOn(deletionUnder(queue.directory(), from)));
        }
        CompletableFuture<Boolean> deleted = deletionOf(keys.get(decision.watch()).getKey(), from);
        List<QueueEntry> withoutIt = new ArrayList<>(entries);
        withoutIt.remove(decision.watch());
        if (!QueueRule.decide(name, withoutIt, position - 1).granted()) {
            return new Attempt.Held(null, retryOn(deleted));
        }
        return new Attempt.Held(null, handOff(deleted, key, keys.get(position).getCreateRevision(), request.stamp()));
    }

    /**
     * The wake of a waiter whose one blocker is the watched key: its deletion grants this key (keys
     * only leave the queue ahead of it, and fewer keys ahead never take a grant back), so the waiter
     * holds it once one linearizable read finds its own key still there, by its create revision (a break deletes every key of
     * the queue at one revision), with no new attempt. The engine counts the lease from the send of
     * the attempt that returned this wake, for no longer than the key's session is known to live
     * from then ({@link #grantedFor}). Anything else (a failed watch or read, the
     * key gone) is a plain retry. Cancelling the wake ends the watch.
     */
    private CompletableFuture<Wake> handOff(CompletableFuture<Boolean> deleted, ByteSequence own, long token, long stamp) {
        CompletableFuture<Wake> wake = new CompletableFuture<>();
        deleted.whenComplete((event, error) -> {
            if (error != null || !event) {
                wake.complete(Wake.RETRY);
                return;
            }
            // The key's create revision, not just its name: a client reuses a name once its key is
            // deleted (KeyNumbers), and a key of that name created since is not this acquisition's.
            client.getKVClient().get(own, OWN_KEY)
                    .whenComplete((read, failed) -> wake.complete(failed == null && read.getKvs().size() == 1
                            && read.getKvs().get(0).getCreateRevision() == token
                            ? new Wake.Granted(token, stamp) : Wake.RETRY));
        });
        wake.whenComplete((ignored, error) -> deleted.cancel(false));
        return wake;
    }

    /** A retry when {@code deleted} completes (a deletion or a failed watch); cancelling it ends the watch. */
    private static CompletableFuture<Wake> retryOn(CompletableFuture<Boolean> deleted) {
        CompletableFuture<Wake> wake = deleted.handle((event, error) -> Wake.RETRY);
        wake.whenComplete((ignored, error) -> deleted.cancel(false));
        return wake;
    }

    /**
     * Completes with true when {@code key} is deleted at or after {@code fromRevision} (so a deletion
     * between the read and the watch is not missed), false when the watch fails; cancelling it ends
     * the watch.
     */
    private CompletableFuture<Boolean> deletionOf(ByteSequence key, long fromRevision) {
        return watchDeletions(key, WatchOption.builder().withRevision(fromRevision).withNoPut(true).build());
    }

    /** Like {@link #deletionOf}, at the next deletion of any key under {@code directory}. */
    private CompletableFuture<Boolean> deletionUnder(ByteSequence directory, long fromRevision) {
        return watchDeletions(directory,
                WatchOption.builder().isPrefix(true).withRevision(fromRevision).withNoPut(true).build());
    }

    private CompletableFuture<Boolean> watchDeletions(ByteSequence key, WatchOption option) {
        CompletableFuture<Boolean> deleted = new CompletableFuture<>();
        Watch.Watcher watcher = client.getWatchClient().watch(key, option,
                Watch.listener(response -> {
                    if (!response.getEvents().isEmpty()) {
                        deleted.complete(true);
                    }
                }, error -> deleted.complete(false)));
        deleted.whenComplete((event, error) -> watcher.close());
        return deleted;
    }

    /** What the key's session still grants, from its latest grant or confirmed keep-alive; see {@link Acquisitions#grantedFor}. */
    @Override
    public Duration grantedFor(String holder, long sentAtNanos) {
        return acquisitions.grantedFor(holder, sentAtNanos);
    }

    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return acquisitions.renew(holder, ttl);
    }

    /** Sends the renewals of keys on sessions buffered since the last flush: see {@link KeepAlives}. */
    @Override
    public void flushRenewals() {
        acquisitions.flushRenewals();
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return acquisitions.revoke(holder).thenApply(ReleaseOutcome::single);
    }

    /**
     * Moves the key onto a new etcd lease covering {@code keepFor}, rounded up to whole seconds,
     * holder-checked, and revokes the acquisition's own lease (a session stays): see {@link Acquisitions#keep}.
     */
    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        return acquisitions.keep(holder, keepFor).thenApply(ReleaseOutcome::single);
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return acquisitions.revoke(holder).thenApply(ignored -> null);
    }

    /** A lost lease's key on a session is deleted once the ttl has passed ({@link Acquisitions#expireLost}). */
    @Override
    public void leaseLost(String name, String holder) {
        acquisitions.expireLost(holder);
    }

    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return ReleaseSignal.none();
    }
}
