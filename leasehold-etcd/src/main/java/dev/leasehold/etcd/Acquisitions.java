package dev.leasehold.etcd;

import dev.leasehold.LeaseholdException;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.etcd.internal.EtcdErrors;
import dev.leasehold.etcd.internal.QueueKeys;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.Status;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The etcd lease behind each acquisition of one client, from its first attempt until it is
 * released or abandoned: one etcd lease per acquisition, whose keep-alive is the engine's renewal.
 *
 * <p>Why one etcd lease per acquisition rather than one per client session: the engine's options
 * then mean on etcd what they mean on every backend. A fixed lease ({@code LockOptions.fixedLease})
 * really ends on the server when its time is up, while the client lives on; a watchdog lease is
 * kept alive by the engine's renewal (one {@code LeaseKeepAlive} per renewal) and ends on the server
 * at most its ttl after the renewals stopped; a release is one {@code LeaseRevoke}, which deletes the
 * key with the lease. A session lease would keep a fixed lease's key, or a lost holder's key, alive
 * as long as the client runs.
 *
 * <p>The lease's TTL on the server is the lease's ttl rounded up to whole seconds (etcd's unit, and
 * never below etcd's minimum): the server always keeps a key at least as long as the engine's local
 * deadline trusts it, so {@code lost()} completes before the server can give the lock to another.
 * A keep-alive counts only once a linearizable read sent after its answer confirmed, in the same
 * raft term, that a quorum follows the leader that renewed it (see {@code confirm}): a leader cut off
 * from its peers can no longer extend a lease the majority is about to expire.
 */
final class Acquisitions {

    /** One acquisition's current etcd lease and key. */
    record Acquisition(long leaseId, long ttlSeconds, ByteSequence key) {
    }

    /** The lease of one acquisition; replaced when it had to be granted again or lengthened. */
    private static final class Slot {
        volatile CompletableFuture<Acquisition> current;
        /** The last renewal or extension: each waits for the one before, which may replace the lease. */
        private CompletableFuture<Boolean> lastRenewal = CompletableFuture.completedFuture(true);

        Slot(CompletableFuture<Acquisition> current) {
            this.current = current;
        }
    }

    private static final long KEEP_ALIVE_RETRY_MILLIS = 50;

    private final Client client;
    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private final long retryNanos;

    /**
     * @param retryFor how long a keep-alive refused for want of a leader (an election going on) is
     *                 retried; jetcd retries its other calls on its own, but not this stream
     */
    Acquisitions(Client client, Duration retryFor) {
        this.client = client;
        this.retryNanos = retryFor.toNanos();
    }

    /** Whole seconds, rounded up, at least 1: etcd's lease unit. */
    static long seconds(Duration ttl) {
        long millis = ttl.toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }

    /**
     * Runs {@code use} with the live lease of {@code holder}'s acquisition, one that was granted or
     * kept alive after this was called (so it lives at least {@code ttl} from now): granted on the
     * first attempt; on a later attempt the same lease (the key keeps its place in the queue), kept
     * alive by a {@code LeaseKeepAlive} sent alongside {@code use}'s calls, not before them, which
     * saves a round trip per attempt. If the lease had expired meanwhile, {@code use}'s result is
     * dropped ({@code discard}) and it runs again with a new lease (the key lost its place, as a dead
     * waiter's does).
     */
    <T> CompletableFuture<T> withLease(String holder, QueueKeys queue, String tag, Duration ttl,
                                       Function<Acquisition, CompletableFuture<T>> use, Consumer<T> discard) {
        Slot slot = slots.get(holder);
        if (slot == null) {
            Slot fresh = new Slot(grant(queue, tag, ttl));
            slot = slots.putIfAbsent(holder, fresh);
            if (slot == null) {
                return fresh.current.thenCompose(use);
            }
        }
        Slot known = slot;
        return known.current.thenCompose(acquisition -> {
            CompletableFuture<Boolean> alive = keepAlive(acquisition);
            CompletableFuture<T> used = use.apply(acquisition);
            return alive.handle((isAlive, error) -> {
                if (error != null || !isAlive) {
                    used.thenAccept(discard);
                }
                if (error != null) {
                    throw new CompletionException(EtcdErrors.unwrap(error));
                }
                return isAlive;
            }).thenCompose(isAlive -> {
                if (isAlive) {
                    // Revoked between the keep-alive and use's transaction (an operator's break
                    // revokes a waiter's lease): the key lost its place, as if the lease had expired.
                    return used.exceptionallyCompose(error -> EtcdErrors.isLeaseNotFound(error)
                            ? regrant(holder, known, queue, tag, ttl, use) : CompletableFuture.failedFuture(error));
                }
                return regrant(holder, known, queue, tag, ttl, use);
            });
        });
    }

    /**
     * A new lease for {@code holder}'s acquisition, then {@code use} with it; none once the
     * acquisition was released or abandoned ({@link #revoke}), whose lease nobody would revoke.
     */
    private <T> CompletableFuture<T> regrant(String holder, Slot slot, QueueKeys queue, String tag, Duration ttl,
                                             Function<Acquisition, CompletableFuture<T>> use) {
        CompletableFuture<Acquisition> again;
        synchronized (slot) {
            if (slots.get(holder) != slot) {
                return CompletableFuture.failedFuture(new LeaseholdException("the acquisition of holder "
                        + HolderIds.redact(holder) + " was given up while its etcd lease was replaced"));
            }
            again = grant(queue, tag, ttl);
            slot.current = again;
        }
        return again.thenCompose(use);
    }

    /**
     * Extends {@code holder}'s lease to at least {@code ttl} from now, if its key still stands.
     *
     * @return false if the lease expired (its key is gone) or the acquisition is unknown
     */
    CompletableFuture<Boolean> renew(String holder, Duration ttl) {
        Slot slot = slots.get(holder);
        if (slot == null) {
            return CompletableFuture.completedFuture(false);
        }
        // One at a time per acquisition: two lengthenings from the same lease would each move the key,
        // and the slot could end on the lease the key left (kept alive while the key expires).
        synchronized (slot) {
            CompletableFuture<Boolean> renewed = slot.lastRenewal.handle((ignored, error) -> null)
                    .thenCompose(ignored -> slot.current)
                    .thenCompose(acquisition -> {
                        long wanted = seconds(ttl);
                        if (wanted <= acquisition.ttlSeconds()) {
                            return keepAlive(acquisition);
                        }
                        return lengthen(slot, acquisition, holder, wanted);
                    });
            slot.lastRenewal = renewed;
            return renewed;
        }
    }

    /**
     * Moves the key onto a new, longer lease (etcd cannot change a lease's TTL): a put on an
     * existing key keeps its create revision, so the token and the queue position stay.
     */
    private CompletableFuture<Boolean> lengthen(Slot slot, Acquisition acquisition, String holder, long seconds) {
        return client.getLeaseClient().grant(seconds).thenCompose(granted -> client.getKVClient().txn()
                .If(new Cmp(acquisition.key(), Cmp.Op.EQUAL, CmpTarget.value(value(holder))))
                .Then(Op.put(acquisition.key(), value(holder), PutOption.builder().withLeaseId(granted.getID()).build()))
                .commit()
                .thenApply(response -> {
                    if (!response.isSucceeded()) {
                        client.getLeaseClient().revoke(granted.getID());
                        return false;
                    }
                    slot.current = CompletableFuture.completedFuture(
                            new Acquisition(granted.getID(), seconds, acquisition.key()));
                    client.getLeaseClient().revoke(acquisition.leaseId());
                    return true;
                }));
    }

    /**
     * Forgets {@code holder}'s acquisition and revokes its lease (which deletes its key), once any
     * grant still in flight has landed.
     *
     * @return whether the lease was still live (the key was still ours until now)
     */
    CompletableFuture<Boolean> revoke(String holder) {
        Slot slot = slots.get(holder);
        if (slot == null) {
            return CompletableFuture.completedFuture(false);
        }
        CompletableFuture<Acquisition> current;
        synchronized (slot) {
            // With regrant's check under the same monitor: a new lease is either this one or never made.
            slots.remove(holder, slot);
            current = slot.current;
        }
        return current.handle((acquisition, grantFailed) -> acquisition)
                .thenCompose(acquisition -> {
                    if (acquisition == null) {
                        return CompletableFuture.completedFuture(false);
                    }
                    return client.getLeaseClient().revoke(acquisition.leaseId())
                            .handle((revoked, error) -> {
                                if (error == null) {
                                    return true;
                                }
                                if (EtcdErrors.isLeaseNotFound(error)) {
                                    return false;
                                }
                                // Not settled: keep it, so a retried release (or abandon) tries again.
                                slots.putIfAbsent(holder, slot);
                                throw new CompletionException(EtcdErrors.unwrap(error));
                            });
                });
    }

    /**
     * Forgets {@code holder}'s acquisition but keeps its key for {@code keepFor} more
     * ({@link dev.leasehold.LockOptions#holdAtLeast}): grants a new etcd lease of
     * {@code keepFor} rounded up to whole seconds (and never below etcd's minimum, so at least that
     * long), moves the key onto it in a {@code Txn} that compares the key's value with the holder
     * id (a put keeps the create revision, so the key keeps its place and nobody behind it moves
     * up), then revokes the acquisition's own lease. The new lease is never kept alive: it expires
     * on the server by itself, even if this process dies, and its expiry deletes the key, which
     * wakes the waiter watching it. If the key is no longer the holder's, the new lease is revoked
     * and so is the old one, as a plain release would.
     *
     * @return whether the key was still ours and is now kept
     */
    CompletableFuture<Boolean> keep(String holder, Duration keepFor) {
        Slot slot = slots.remove(holder);
        if (slot == null) {
            return CompletableFuture.completedFuture(false);
        }
        CompletableFuture<Acquisition> settled;
        synchronized (slot) {
            settled = slot.lastRenewal.handle((ignored, error) -> null).thenCompose(ignored -> slot.current);
        }
        return settled.handle((acquisition, grantFailed) -> acquisition).thenCompose(acquisition -> {
            if (acquisition == null) {
                return CompletableFuture.completedFuture(false);
            }
            return client.getLeaseClient().grant(seconds(keepFor)).thenCompose(granted -> client.getKVClient().txn()
                    .If(new Cmp(acquisition.key(), Cmp.Op.EQUAL, CmpTarget.value(value(holder))))
                    .Then(Op.put(acquisition.key(), value(holder), PutOption.builder().withLeaseId(granted.getID()).build()))
                    .commit()
                    .thenCompose(response -> {
                        if (!response.isSucceeded()) {
                            client.getLeaseClient().revoke(granted.getID());
                        }
                        return client.getLeaseClient().revoke(acquisition.leaseId())
                                .handle((revoked, error) -> response.isSucceeded());
                    })).whenComplete((kept, error) -> {
                        if (error != null) {
                            // Not settled: keep it, so a retried release tries again.
                            slots.putIfAbsent(holder, slot);
                        }
                    });
        });
    }

    /** Acquisitions this client has not released or abandoned yet. */
    int size() {
        return slots.size();
    }

    private CompletableFuture<Acquisition> grant(QueueKeys queue, String tag, Duration ttl) {
        long seconds = seconds(ttl);
        return client.getLeaseClient().grant(seconds)
                .thenApply(granted -> new Acquisition(granted.getID(), seconds, queue.key(tag, granted.getID())));
    }

    /** One keep-alive: true if the lease lives on, false if it had expired. */
    private CompletableFuture<Boolean> keepAlive(Acquisition acquisition) {
        return keepAlive(acquisition, System.nanoTime() + retryNanos);
    }

    private CompletableFuture<Boolean> keepAlive(Acquisition acquisition, long giveUpAtNanos) {
        return client.getLeaseClient().keepAliveOnce(acquisition.leaseId()).handle((response, error) -> {
            if (error == null) {
                return response.getTTL() > 0
                        ? confirm(acquisition, response.getHeader().getRaftTerm(), giveUpAtNanos)
                        : CompletableFuture.completedFuture(false);
            }
            if (EtcdErrors.isLeaseNotFound(error)) {
                return CompletableFuture.completedFuture(false);
            }
            if (Status.fromThrowable(EtcdErrors.unwrap(error)).getCode() == Status.Code.UNAVAILABLE
                    && System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(KEEP_ALIVE_RETRY_MILLIS) - giveUpAtNanos < 0) {
                return CompletableFuture.supplyAsync(() -> null,
                                CompletableFuture.delayedExecutor(KEEP_ALIVE_RETRY_MILLIS, TimeUnit.MILLISECONDS))
                        .thenCompose(ignored -> keepAlive(acquisition, giveUpAtNanos));
            }
            return CompletableFuture.<Boolean>failedFuture(EtcdErrors.unwrap(error));
        }).thenCompose(answer -> answer);
    }

    /**
     * Proves that the keep-alive answered in raft term {@code term} reached the lessor that counts:
     * etcd 3.4 (before 3.4.28) answers a keep-alive from the leader's own lessor without checking that
     * a quorum still follows it, so a leader cut off from its peers renews leases that the majority's
     * new leader never hears of, for up to two election timeouts. A linearizable read sent after the
     * answer is served only once the leader of its term has heard from a quorum; if that term is still
     * {@code term}, no other leader was elected before the keep-alive was answered, and the one whose
     * lessor renewed the lease was the real leader. A new term in between means the renewal may have
     * reached a deposed leader: it is sent again, in the new term.
     */
    private CompletableFuture<Boolean> confirm(Acquisition acquisition, long term, long giveUpAtNanos) {
        return client.getKVClient().get(acquisition.key(), GetOption.builder().withCountOnly(true).build())
                .thenCompose(read -> {
                    if (read.getHeader().getRaftTerm() == term) {
                        return CompletableFuture.completedFuture(true);
                    }
                    if (System.nanoTime() - giveUpAtNanos < 0) {
                        return keepAlive(acquisition, giveUpAtNanos);
                    }
                    return CompletableFuture.failedFuture(Status.UNAVAILABLE.withDescription("the keep-alive of an etcd"
                            + " lease could not be confirmed by a quorum (elections going on)").asRuntimeException());
                });
    }

    static ByteSequence value(String holder) {
        return ByteSequence.from(holder, StandardCharsets.UTF_8);
    }
}
