package dev.leasehold.etcd;

import io.etcd.jetcd.Client;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The session leases of one lock client: one etcd lease per ttl in whole seconds, shared by every
 * watchdog acquisition of that ttl (etcd's own {@code concurrency.Session} model), so an
 * acquisition is one {@code Txn} and a release one more instead of a lease grant and
 * a revocation each. Their renewals keep the session alive: a batch of them sends at most one
 * keep-alive per session, and only when the session was last confirmed more than a third of the ttl
 * ago ({@code KeepAlives}).
 *
 * <p>Each session remembers the send time of its latest grant or quorum-confirmed keep-alive
 * ({@link Session#confirmed}): the servers keep the lease at least its TTL from then (a lease
 * expires only its TTL after the leader last renewed it, and a new leader renews every lease in
 * full), which bounds every key on it ({@link Session#grantedFor}) without a keep-alive of its own.
 *
 * <p>A session lease found gone on the server (expired after its keep-alives failed for its ttl, or
 * revoked) took every key on it: {@link #gone} completes the loss signal of every acquisition that
 * still had its key on it, and the next acquisition of that ttl is granted a new session.
 */
final class Sessions {

    static final String LOST = "the etcd session lease was gone on the server (expired or revoked), "
            + "and with it the lock's key";

    /** One shared etcd lease and the loss signals of the acquisitions whose keys hang on it. */
    static final class Session {
        final long leaseId;
        final long seconds;
        /** The numbers naming this session's keys, reused per lock name once a key is deleted. */
        final KeyNumbers numbers = new KeyNumbers();
        private final Set<CompletableFuture<String>> members = ConcurrentHashMap.newKeySet();
        /** {@link System#nanoTime()} at the send of the latest grant or confirmed keep-alive; only grows. */
        private final AtomicLong confirmedAt;
        /** The latest keep-alive sent for this lease, answered or not. */
        private final AtomicReference<CompletableFuture<KeepAlives.Answer>> keepAlive = new AtomicReference<>();

        private Session(long leaseId, long seconds, long grantSentAtNanos) {
            this.leaseId = leaseId;
            this.seconds = seconds;
            this.confirmedAt = new AtomicLong(grantSentAtNanos);
        }

        /**
         * A keep-alive of this lease sent at {@code sentAtNanos} was answered with a positive TTL and
         * confirmed by a quorum in the same raft term: the lease lives at least its TTL from then.
         */
        void confirmed(long sentAtNanos) {
            confirmedAt.accumulateAndGet(sentAtNanos, (known, sent) -> sent - known > 0 ? sent : known);
        }

        /**
         * How long after {@code sentAtNanos} the servers keep this lease at least, unless it is
         * revoked (which deletes its keys, so nothing is held on it any more): its TTL from the
         * latest confirmed send. Negative when that bound has passed.
         */
        Duration grantedFor(long sentAtNanos) {
            return Duration.ofNanos(confirmedAt.get() + TimeUnit.SECONDS.toNanos(seconds) - sentAtNanos);
        }

        /**
         * Whether the servers keep this lease at least {@code nanos} after {@code nowNanos}, from its
         * latest confirmed send ({@link #grantedFor} without the allocation).
         */
        boolean covers(long nowNanos, long nanos) {
            return confirmedAt.get() + TimeUnit.SECONDS.toNanos(seconds) - nowNanos - nanos >= 0;
        }

        /**
         * The keep-alive of this lease still in flight, or a new one from {@code send}: keys renewing
         * meanwhile share it instead of sending one each.
         */
        CompletableFuture<KeepAlives.Answer> keepAlive(Supplier<CompletableFuture<KeepAlives.Answer>> send) {
            while (true) {
                CompletableFuture<KeepAlives.Answer> current = keepAlive.get();
                if (current != null && !current.isDone()) {
                    return current;
                }
                CompletableFuture<KeepAlives.Answer> fresh = new CompletableFuture<>();
                if (keepAlive.compareAndSet(current, fresh)) {
                    send.get().whenComplete((answer, error) -> {
                        if (error != null) {
                            fresh.completeExceptionally(error);
                        } else {
                            fresh.complete(answer);
                        }
                    });
                    return fresh;
                }
            }
        }

        /** A new loss signal for a key now put on this session, completed by {@link Sessions#gone}. */
        CompletableFuture<String> join() {
            CompletableFuture<String> lost = new CompletableFuture<>();
            members.add(lost);
            return lost;
        }

        /** The key of {@code lost} left this session (released, or moved to a lease of its own). */
        void leave(CompletableFuture<String> lost) {
            members.remove(lost);
        }

        void rejoin(CompletableFuture<String> lost) {
            members.add(lost);
        }
    }

    private final Client client;
    private final Map<Long, CompletableFuture<Session>> live = new ConcurrentHashMap<>();

    Sessions(Client client) {
        this.client = client;
    }

    /**
     * The live session of {@code seconds}, granted now if there is none; a failed grant is not kept.
     * A grant is a raft write, committed by a quorum: the lease lives at least its TTL from its send.
     */
    CompletableFuture<Session> of(long seconds) {
        CompletableFuture<Session> session = live.computeIfAbsent(seconds, ttl -> {
            long sentAt = System.nanoTime();
            return client.getLeaseClient().grant(ttl).thenApply(granted -> new Session(granted.getID(), ttl, sentAt));
        });
        session.whenComplete((ignored, error) -> {
            if (error != null) {
                live.remove(seconds, session);
            }
        });
        return session;
    }

    /**
     * {@code session}'s lease was found gone on the server: it is forgotten (the next acquisition
     * gets a new one), and every acquisition whose key was on it but {@code finder} (whose own
     * renewal or attempt found it, and reports it itself) is told at once.
     */
    void gone(Session session, CompletableFuture<String> finder) {
        gone(session, List.of(finder));
    }

    /** As {@link #gone(Session, CompletableFuture)}, with several finders (the renewals of one batch). */
    void gone(Session session, Collection<CompletableFuture<String>> finders) {
        live.computeIfPresent(session.seconds, (ttl, current) ->
                current.isDone() && !current.isCompletedExceptionally() && current.join() == session ? null : current);
        for (CompletableFuture<String> lost : List.copyOf(session.members)) {
            session.members.remove(lost);
            if (!finders.contains(lost)) {
                lost.complete(LOST);
            }
        }
    }

    /** Revokes every session lease (their keys go with them), waiting at most {@code waitMillis}. */
    void close(long waitMillis) {
        List<CompletableFuture<?>> revoked = live.values().stream()
                .map(session -> session.thenCompose(s -> client.getLeaseClient().revoke(s.leaseId)))
                .<CompletableFuture<?>>map(future -> future)
                .toList();
        live.clear();
        try {
            CompletableFuture.allOf(revoked.toArray(CompletableFuture[]::new)).get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception expiresOnItsOwn) {
            // A session not revoked expires on the server within its ttl.
        }
    }
}
