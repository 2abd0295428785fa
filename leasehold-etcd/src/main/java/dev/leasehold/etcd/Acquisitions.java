package dev.leasehold.etcd;

import dev.leasehold.engine.Futures;
import dev.leasehold.etcd.internal.EtcdErrors;
import dev.leasehold.etcd.internal.QueueKeys;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The etcd lease behind each acquisition of one client, from its first attempt until it is
 * released or abandoned: a watchdog acquisition's key hangs on the client's session lease of its
 * ttl ({@link Sessions}), a fixed lease's on an etcd lease of its own.
 *
 * <p>Why a fixed lease keeps a lease of its own: it must really end on the server when its time is
 * up, while the client lives on and keeps its session alive. A watchdog key on a session ends on
 * the server at most its ttl after the renewals of the session stopped (a crashed or cut-off
 * client), or when it is released (one {@code Txn} deleting it); a lengthened one ({@code extend} past
 * the session's ttl) moves to a lease of its own, as does one kept for hold-at-least.
 *
 * <p>The lease's TTL on the server is the lease's ttl rounded up to whole seconds (etcd's unit, and
 * never below etcd's minimum): the server always keeps a key at least as long as the engine's local
 * deadline trusts it, so {@code lost()} completes before the server can give the lock to another.
 * A key on a session is kept at least the session's TTL from the session's latest grant or
 * confirmed keep-alive ({@link Sessions.Session#grantedFor}), which {@link #grantedFor} reports to
 * the engine, so the local deadline never outlasts it. An attempt on a session that still has at
 * least two thirds of the ttl of that bound is its {@code Txn} alone; otherwise it sends a
 * {@code LeaseKeepAlive} of the session alongside its {@code Txn}. A keep-alive counts only once a
 * linearizable read sent after its answer confirmed, in the same raft term, that a quorum follows
 * the leader that renewed it ({@link KeepAlives}): a leader cut off from its peers can no longer
 * extend a lease the majority is about to expire. A renewal's read also checks that the
 * acquisition's key still stands (a broken lock's key is deleted while its session lives on); the
 * renewals of one batch on one session share one keep-alive, if one is due, and one read.
 */
final class Acquisitions {

    /**
     * One acquisition's current etcd lease and key.
     *
     * @param session the session the key hangs on, or null when the lease is the key's own
     * @param lost    completes when the session is found gone ({@link Sessions#gone}); null for an own lease
     * @param number  the number naming the key on its session, or null for a key named by its own lease
     * @param created the key's create revision once an attempt read it (0 before): a key of the same
     *                name with another is not this acquisition's ({@link KeyNumbers})
     */
    record Acquisition(long leaseId, long ttlSeconds, ByteSequence key, Sessions.Session session,
                       CompletableFuture<String> lost, KeyNumbers.Claim number, AtomicLong created) {

        /** Whether a key of this acquisition's name, created at {@code createRevision} (0: absent), is its own. */
        boolean owns(long createRevision) {
            long known = created.get();
            return createRevision != 0 && (known == 0 || known == createRevision);
        }

        /** The key's number may never be reused: the key lives on elsewhere, or a write of it may still land. */
        void retireNumber() {
            endNumber(false);
        }

        /** Frees the key's number for the next acquisition of the name if {@code reusable}, else retires it. */
        void endNumber(boolean reusable) {
            if (number != null && reusable) {
                number.free();
            } else if (number != null) {
                number.retire();
            }
        }
    }

    /**
     * How long writes of keys wait for one of theirs still on the wire before they leave without it:
     * a call that hangs (a frozen member) holds up the others no longer than this.
     */
    private static final Duration WRITE_STALL = Duration.ofSeconds(1);

    private final Client client;
    private final Sessions sessions;
    private final KeepAlives keepAlives;
    private final QueueWrites writes;
    private final Map<String, AcquisitionSlot> slots = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param retryFor how long a keep-alive refused for want of a leader (an election going on) is
     *                 retried; jetcd retries its other calls on its own, but not this stream
     */
    Acquisitions(Client client, Sessions sessions, Duration retryFor) {
        this.client = client;
        this.sessions = sessions;
        this.keepAlives = new KeepAlives(client, sessions, retryFor.toNanos());
        this.writes = new QueueWrites(client, WRITE_STALL);
    }

    /** The creates and deletes of this client's keys, those on sessions sent together while one is on the wire. */
    QueueWrites writes() {
        return writes;
    }

    /** Whole seconds, rounded up, at least 1: etcd's lease unit. */
    static long seconds(Duration ttl) {
        long millis = ttl.toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }

    /**
     * Runs {@code use} with the live lease of {@code holder}'s acquisition. An own lease
     * ({@code shared} false) is granted on the first attempt, after this was called, so it lives at
     * least {@code ttl} from now. A session whose confirmed bound ({@link #grantedFor}) still
     * covers two thirds of {@code ttl} from now is used as it is: {@code use}'s {@code Txn}, which
     * etcd refuses if the session is gone, is the only call. Otherwise, and on every later attempt of
     * an own lease (the key keeps its place in the queue), the lease is kept alive by a
     * {@code LeaseKeepAlive} sent alongside {@code use}'s calls, not before them, which saves a round
     * trip per attempt. If the lease had expired meanwhile, {@code use}'s result is dropped
     * ({@code discard}) and it runs again with a new lease (the key lost its place, as a dead
     * waiter's does).
     */
    <T> CompletableFuture<T> withLease(String holder, QueueKeys queue, String tag, Duration ttl, boolean shared,
                                       Function<Acquisition, CompletableFuture<T>> use, Consumer<T> discard) {
        AcquisitionSlot slot = slots.get(holder);
        boolean justGranted = false;
        if (slot == null) {
            AcquisitionSlot fresh = new AcquisitionSlot(place(queue, tag, ttl, shared));
            slot = slots.putIfAbsent(holder, fresh);
            if (slot == null) {
                slot = fresh;
                justGranted = !shared;
            }
        }
        AcquisitionSlot known = slot;
        CompletableFuture<Void> admitted = new CompletableFuture<>();
        CompletableFuture<Acquisition> current = admitted.thenCompose(ignored -> known.current);
        CompletableFuture<T> attempt = justGranted ? current.thenCompose(use)
                : current.thenCompose(acquisition -> coveredBySession(acquisition, ttl)
                        ? onSession(known, acquisition, queue, tag, ttl, use)
                        : keptAlive(known, acquisition, queue, tag, ttl, shared, use, discard));
        if (!known.admit(attempt)) {
            // Abandoned since the look-up: the abandon may have deleted the key this attempt would create.
            return CompletableFuture.failedFuture(new CancellationException("the acquisition was abandoned"));
        }
        admitted.complete(null);
        // A copy: the engine may cancel what it gets, and the release must still wait for the Txn.
        return attempt.copy();
    }

    /** Whether {@code acquisition}'s session is known to live at least two thirds of {@code ttl} from now. */
    private static boolean coveredBySession(Acquisition acquisition, Duration ttl) {
        long ttlNanos = ttl.toNanos();
        return acquisition.session() != null && acquisition.session().covers(System.nanoTime(), ttlNanos - ttlNanos / 3);
    }

    /**
     * {@code use} with {@code acquisition} on its session as it is, with no keep-alive: the engine
     * counts the lease no longer than {@link #grantedFor} says. If etcd refused the {@code Txn} for
     * want of the session's lease (revoked, or expired while this client was cut off), the session is
     * gone: every key on it is lost, and {@code use} runs again on a newly placed key.
     */
    private <T> CompletableFuture<T> onSession(AcquisitionSlot slot, Acquisition acquisition, QueueKeys queue,
                                               String tag, Duration ttl,
                                               Function<Acquisition, CompletableFuture<T>> use) {
        return use.apply(acquisition).handle((result, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(result);
            }
            if (!EtcdErrors.isLeaseNotFound(error)) {
                return CompletableFuture.<T>failedFuture(Futures.unwrap(error));
            }
            sessions.gone(acquisition.session(), acquisition.lost());
            CompletableFuture<Acquisition> again = place(queue, tag, ttl, true);
            slot.current = again;
            return again.thenCompose(use);
        }).thenCompose(answer -> answer);
    }

    /**
     * How long after {@code sentAtNanos} the servers keep {@code holder}'s key at least: see
     * {@link #grantedFor(CompletableFuture, long)}; {@code null} for an acquisition unknown here
     * (released, or never placed), of which the engine asks nothing.
     */
    Duration grantedFor(String holder, long sentAtNanos) {
        AcquisitionSlot slot = slots.get(holder);
        return slot == null ? null : grantedFor(slot.current, sentAtNanos);
    }

    /**
     * What the servers grant the key of {@code current}, counted from {@code sentAtNanos}: its
     * session's {@link Sessions.Session#grantedFor}; {@code null} for a key on a lease of its own,
     * granted or kept alive after the send of the attempt or renewal that the engine counts from
     * (so the ttl alone bounds it); nothing ({@link Duration#ZERO}) while the key is being placed
     * again or could not be (its lease was found gone, and the key with it), rather than a claim
     * that the ttl bounds it, or an exception thrown into the engine.
     */
    static Duration grantedFor(CompletableFuture<Acquisition> current, long sentAtNanos) {
        if (!current.isDone() || current.isCompletedExceptionally()) {
            return Duration.ZERO;
        }
        Acquisition acquisition = current.join();
        return acquisition.session() == null ? null : acquisition.session().grantedFor(sentAtNanos);
    }

    /**
     * {@code use} with {@code acquisition}, whose lease a keep-alive sent alongside extends; if it had
     * expired, {@code use}'s result is dropped and it runs again on a newly placed key.
     */
    private <T> CompletableFuture<T> keptAlive(AcquisitionSlot slot, Acquisition acquisition, QueueKeys queue,
                                               String tag, Duration ttl, boolean shared,
                                               Function<Acquisition, CompletableFuture<T>> use, Consumer<T> discard) {
        CompletableFuture<T> used = use.apply(acquisition);
        // A failed keep-alive fails the attempt only once its Txn settled: the release or abandon that
        // follows waits for the attempt (AcquisitionSlot), and must not delete the key before it lands.
        CompletableFuture<KeepAlives.Liveness> alive = keepAlives.keepAlive(acquisition, false)
                .exceptionallyCompose(error -> used.handle((ignored, failed) -> null)
                        .thenCompose(ignored -> CompletableFuture.<KeepAlives.Liveness>failedFuture(Futures.unwrap(error))));
        return alive.handle((liveness, error) -> {
            if (error != null || liveness != KeepAlives.Liveness.ALIVE) {
                used.thenAccept(discard);
            }
            if (error != null) {
                throw new CompletionException(Futures.unwrap(error));
            }
            return liveness == KeepAlives.Liveness.ALIVE;
        }).thenCompose(isAlive -> {
            if (isAlive) {
                return used;
            }
            if (acquisition.session() != null) {
                sessions.gone(acquisition.session(), acquisition.lost());
            }
            CompletableFuture<Acquisition> again = place(queue, tag, ttl, shared);
            slot.current = again;
            return again.thenCompose(use);
        });
    }

    /**
     * Extends {@code holder}'s lease to at least {@code ttl} from now, if its key still stands. A key
     * on a session waits for {@link #flushRenewals()}, which renews the session once for all its keys
     * of the batch ({@link KeepAlives}); a renewal that had to wait for the one before it (which may
     * have moved the key) is flushed by itself.
     *
     * @return false if the lease expired (its key is gone), the key was deleted, or the acquisition
     *         is unknown
     */
    CompletableFuture<Boolean> renew(String holder, Duration ttl) {
        AcquisitionSlot slot = slots.get(holder);
        if (slot == null) {
            return CompletableFuture.completedFuture(false);
        }
        // Set once this call returned: a session renewal queued after that is not in the engine's flush.
        AtomicBoolean returned = new AtomicBoolean();
        // One at a time per acquisition: two lengthenings from the same lease would each move the key,
        // and the slot could end on the lease the key left (kept alive while the key expires).
        synchronized (slot) {
            CompletableFuture<Boolean> renewed = slot.lastRenewal.handle((ignored, error) -> null)
                    .thenCompose(ignored -> slot.current)
                    .thenCompose(acquisition -> {
                        long wanted = seconds(ttl);
                        if (wanted > acquisition.ttlSeconds()) {
                            return lengthen(slot, acquisition, holder, wanted);
                        }
                        if (acquisition.session() != null) {
                            CompletableFuture<Boolean> queued = keepAlives.renew(acquisition, ttl.toNanos());
                            if (!returned.compareAndSet(false, true)) {
                                keepAlives.flush();
                            }
                            return queued;
                        }
                        return keepAlives.keepAlive(acquisition, true)
                                .thenApply(liveness -> liveness == KeepAlives.Liveness.ALIVE);
                    });
            slot.lastRenewal = renewed;
            returned.set(true);
            return renewed;
        }
    }

    /** Sends the session renewals queued since the last flush ({@link KeepAlives#flush()}). */
    void flushRenewals() {
        keepAlives.flush();
    }

    /**
     * Moves the key onto a new, longer lease of its own (etcd cannot change a lease's TTL), as
     * {@link #moveToNewLease} does. An own lease left behind is revoked; a session stays for its
     * other keys.
     */
    private CompletableFuture<Boolean> lengthen(AcquisitionSlot slot, Acquisition acquisition, String holder, long seconds) {
        // Off the session first: its loss must not be reported for a key that lives on elsewhere.
        leave(acquisition);
        acquisition.retireNumber();
        slot.keyMayHaveMoved = true;
        return moveToNewLease(acquisition, holder, seconds).thenApply(moved -> {
            if (moved.isEmpty()) {
                return false;
            }
            slot.current = CompletableFuture.completedFuture(
                    new Acquisition(moved.getAsLong(), seconds, acquisition.key(), null, null, null, acquisition.created()));
            slot.keyMayHaveMoved = false;
            revokeOwn(acquisition);
            return true;
        });
    }

    /**
     * Grants a new etcd lease of {@code seconds} and moves the acquisition's key onto it in a
     * {@code Txn} that compares the key's value with the holder id: a put on an existing key keeps
     * its create revision, so the token and the queue position stay. If the key is no longer the
     * holder's, the new lease is revoked.
     *
     * @return the new lease's id, or empty if the key was no longer the holder's
     */
    private CompletableFuture<OptionalLong> moveToNewLease(Acquisition acquisition, String holder, long seconds) {
        return client.getLeaseClient().grant(seconds).thenCompose(granted -> client.getKVClient().txn()
                .If(new Cmp(acquisition.key(), Cmp.Op.EQUAL, CmpTarget.value(value(holder))))
                .Then(Op.put(acquisition.key(), value(holder), PutOption.builder().withLeaseId(granted.getID()).build()))
                .commit()
                .thenApply(response -> {
                    if (!response.isSucceeded()) {
                        client.getLeaseClient().revoke(granted.getID());
                        return OptionalLong.empty();
                    }
                    return OptionalLong.of(granted.getID());
                }));
    }

    /**
     * Forgets {@code holder}'s acquisition and deletes its key (one {@code DeleteRange} on a
     * session, or one part of a {@code Txn} of the deletes this client sent meanwhile:
     * {@link QueueWrites#delete}; a {@code LeaseRevoke} of an own lease, which deletes the key with it), once any grant
     * still in flight has landed.
     *
     * @return whether the key was still ours until now
     */
    CompletableFuture<Boolean> revoke(String holder) {
        return revoke(holder, false);
    }

    /**
     * {@link #revoke(String)}; with {@code onlyOnItsLease}, a key on a session is deleted only
     * while it still hangs on that session ({@link #deleteIfStillOn}).
     */
    private CompletableFuture<Boolean> revoke(String holder, boolean onlyOnItsLease) {
        AcquisitionSlot slot = slots.remove(holder);
        if (slot == null) {
            return CompletableFuture.completedFuture(false);
        }
        return lastOf(slot)
                .thenCompose(acquisition -> {
                    if (acquisition == null) {
                        return CompletableFuture.completedFuture(false);
                    }
                    leave(acquisition);
                    CompletableFuture<Boolean> ended = acquisition.session() == null ? endOwnLease(slot, acquisition, holder)
                            : onlyOnItsLease ? deleteIfStillOn(acquisition)
                            : writes.delete(acquisition.key(), value(holder));
                    return ended.handle((wasOurs, error) -> {
                        if (error == null) {
                            acquisition.endNumber(!onlyOnItsLease && slot.everyAttemptAnswered());
                            return wasOurs;
                        }
                        if (EtcdErrors.isLeaseNotFound(error)) {
                            acquisition.retireNumber();
                            return false;
                        }
                        // Not settled: keep it, so a retried release (or abandon) tries again.
                        slot.uncertain();
                        rejoin(acquisition);
                        slot.reopen();
                        slots.putIfAbsent(holder, slot);
                        expireUnreleased(holder, slot, acquisition);
                        throw new CompletionException(Futures.unwrap(error));
                    });
                });
    }

    /**
     * Ends {@code slot} for attempts; completes with its acquisition once the last attempt and the
     * renewal in flight (a lengthening may move the key onto another lease) have settled, or with
     * null if no grant ever placed its key.
     */
    private static CompletableFuture<Acquisition> lastOf(AcquisitionSlot slot) {
        CompletableFuture<Acquisition> settled;
        synchronized (slot) {
            settled = slot.end().thenCompose(ignored -> settled(slot.lastRenewal)).thenCompose(ignored -> slot.current);
        }
        return settled.handle((acquisition, grantFailed) -> acquisition);
    }

    /**
     * Ends a key on an etcd lease of its own: revokes the lease, which deletes the key with it. If a
     * lengthening may have moved the key onto a lease this client never learnt of (its answer was
     * lost), the key is first deleted where it stands, guarded on the holder id, so that it does not
     * live on, held by nobody, for the whole extension; the lease is then revoked, even if it is
     * gone already.
     */
    private CompletableFuture<Boolean> endOwnLease(AcquisitionSlot slot, Acquisition acquisition, String holder) {
        if (!slot.keyMayHaveMoved) {
            return client.getLeaseClient().revoke(acquisition.leaseId()).thenApply(revoked -> true);
        }
        return writes.delete(acquisition.key(), value(holder)).thenCompose(deleted ->
                client.getLeaseClient().revoke(acquisition.leaseId()).handle((revoked, error) -> {
                    if (error != null && !EtcdErrors.isLeaseNotFound(error)) {
                        throw new CompletionException(Futures.unwrap(error));
                    }
                    return deleted;
                }));
    }

    /**
     * Forgets {@code holder}'s acquisition but keeps its key for {@code keepFor} more
     * ({@link dev.leasehold.LockOptions#holdAtLeast}): grants a new etcd lease of
     * {@code keepFor} rounded up to whole seconds (and never below etcd's minimum, so at least that
     * long), moves the key onto it in a {@code Txn} that compares the key's value with the holder
     * id (a put keeps the create revision, so the key keeps its place and nobody behind it moves
     * up), then revokes the acquisition's own lease (a session stays for its other keys). The new
     * lease is never kept alive: it expires on the server by itself, even if this process dies, and
     * its expiry deletes the key, which wakes the waiter watching it. If the key is no longer the
     * holder's, the new lease is revoked, and so is an own lease, as a plain release would.
     *
     * @return whether the key was still ours and is now kept
     */
    CompletableFuture<Boolean> keep(String holder, Duration keepFor) {
        AcquisitionSlot slot = slots.remove(holder);
        if (slot == null) {
            return CompletableFuture.completedFuture(false);
        }
        return lastOf(slot).thenCompose(acquisition -> {
            if (acquisition == null) {
                return CompletableFuture.completedFuture(false);
            }
            leave(acquisition);
            acquisition.retireNumber();
            return moveToNewLease(acquisition, holder, seconds(keepFor)).thenCompose(moved -> {
                if (acquisition.session() != null) {
                    return CompletableFuture.completedFuture(moved.isPresent());
                }
                return client.getLeaseClient().revoke(acquisition.leaseId()).handle((revoked, error) -> moved.isPresent());
            }).whenComplete((kept, error) -> {
                if (error != null) {
                    // Not settled: keep it, so a retried release tries again.
                    rejoin(acquisition);
                    slot.reopen();
                    slots.putIfAbsent(holder, slot);
                    expireUnreleased(holder, slot, acquisition);
                }
            });
        });
    }

    /**
     * The engine counts {@code holder}'s lease lost and renews it no more: its key, if on a session,
     * is deleted once the ttl has passed ({@link #expireUnreleased}), unless released before.
     */
    void expireLost(String holder) {
        AcquisitionSlot slot = slots.get(holder);
        if (slot != null) {
            slot.current.thenAccept(acquisition -> expireUnreleased(holder, slot, acquisition));
        }
    }

    /**
     * A key on a session lives as long as the session, and the client's other leases of that ttl
     * keep the session alive: a lease lost and never released, or a release (or abandon) that
     * failed and is not tried again, would leave the key there, the lock held by nobody, for as
     * long as the client lives. So once the ttl has passed (the lease's renewals had stopped, so its
     * ttl has passed too, as a key expires on Redis), the client deletes the key itself, again every
     * ttl until the delete is answered or the client closes; only while the key still hangs on the
     * session ({@link #deleteIfStillOn}). A release before then releases it as usual, and this finds
     * the acquisition gone.
     */
    private void expireUnreleased(String holder, AcquisitionSlot slot, Acquisition acquisition) {
        if (acquisition.session() == null || closed) {
            return; // an own lease is not kept alive: it expires on the server by itself
        }
        if (acquisition.lost().isDone()) {
            return; // the session was found gone, and the key with it: every lease on it lost at once
        }
        CompletableFuture.delayedExecutor(acquisition.ttlSeconds(), TimeUnit.SECONDS).execute(() -> {
            if (!closed && slots.get(holder) == slot) {
                revoke(holder, true); // a failure schedules the next try
            }
        });
    }

    /**
     * Deletes {@code acquisition}'s key only while it still hangs on the acquisition's session (a
     * linearizable read, then a {@code Txn} that compares the key's mod revision with the one read):
     * a release holding the lock ({@link #keep}) whose answer was lost may have moved the key onto
     * a lease of the keep time, and a lengthening ({@link #lengthen}) onto a longer own lease; such
     * a lease is never kept alive and ends on the server by itself, and the hold it carries must
     * run its course.
     *
     * @return whether the key was deleted
     */
    private CompletableFuture<Boolean> deleteIfStillOn(Acquisition acquisition) {
        return client.getKVClient().get(acquisition.key()).thenCompose(read -> {
            if (read.getKvs().isEmpty() || read.getKvs().get(0).getLease() != acquisition.leaseId()) {
                return CompletableFuture.completedFuture(false);
            }
            return client.getKVClient().txn()
                    .If(new Cmp(acquisition.key(), Cmp.Op.EQUAL, CmpTarget.modRevision(read.getKvs().get(0).getModRevision())))
                    .Then(Op.delete(acquisition.key(), DeleteOption.DEFAULT))
                    .commit()
                    .thenApply(TxnResponse::isSucceeded);
        });
    }

    /** Stops deleting the keys of failed releases: the client's sessions are revoked next, their keys with them. */
    void close() {
        closed = true;
    }

    /** Completes when {@code call} did, whatever its outcome. */
    private static CompletableFuture<Void> settled(CompletableFuture<?> call) {
        return call.handle((ignored, error) -> null);
    }

    /** Acquisitions this client has not released or abandoned yet. */
    int size() {
        return slots.size();
    }

    /** A new key for an acquisition: on the session of its ttl, or on a newly granted lease of its own. */
    private CompletableFuture<Acquisition> place(QueueKeys queue, String tag, Duration ttl, boolean shared) {
        long seconds = seconds(ttl);
        if (shared) {
            return sessions.of(seconds).thenApply(session -> {
                KeyNumbers.Claim number = session.numbers.claim(queue.directory());
                return new Acquisition(session.leaseId, seconds, queue.key(tag, session.leaseId, number.number()),
                        session, session.join(), number, new AtomicLong());
            });
        }
        return client.getLeaseClient().grant(seconds).thenApply(granted ->
                new Acquisition(granted.getID(), seconds, queue.key(tag, granted.getID()), null, null, null, new AtomicLong()));
    }

    private static void leave(Acquisition acquisition) {
        if (acquisition.session() != null) {
            acquisition.session().leave(acquisition.lost());
        }
    }

    private static void rejoin(Acquisition acquisition) {
        if (acquisition.session() != null) {
            acquisition.session().rejoin(acquisition.lost());
        }
    }

    /** Revokes the lease a key left, unless it is a session that other keys still hang on. */
    private void revokeOwn(Acquisition left) {
        if (left.session() == null) {
            client.getLeaseClient().revoke(left.leaseId());
        }
    }

    static ByteSequence value(String holder) {
        return ByteSequence.from(holder, StandardCharsets.UTF_8);
    }
}
