package dev.leasehold.etcd;

import io.etcd.jetcd.Client;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The session leases of one lock client: one etcd lease per ttl in whole seconds, shared by every
 * watchdog acquisition of that ttl (etcd's own {@code concurrency.Session} model), so an
 * acquisition is one {@code Txn} and a release one {@code DeleteRange} instead of a lease grant and
 * a revocation each. The engine's renewals of those acquisitions are the session's keep-alives.
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
        private final AtomicLong sequence = new AtomicLong();
        private final Set<CompletableFuture<String>> members = ConcurrentHashMap.newKeySet();

        private Session(long leaseId, long seconds) {
            this.leaseId = leaseId;
            this.seconds = seconds;
        }

        /** A number no other acquisition on this session has: names its key. */
        long nextSequence() {
            return sequence.incrementAndGet();
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

    /** The live session of {@code seconds}, granted now if there is none; a failed grant is not kept. */
    CompletableFuture<Session> of(long seconds) {
        CompletableFuture<Session> session = live.computeIfAbsent(seconds,
                ttl -> client.getLeaseClient().grant(ttl).thenApply(granted -> new Session(granted.getID(), ttl)));
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
        live.computeIfPresent(session.seconds, (ttl, current) ->
                current.isDone() && !current.isCompletedExceptionally() && current.join() == session ? null : current);
        for (CompletableFuture<String> lost : List.copyOf(session.members)) {
            session.members.remove(lost);
            if (lost != finder) {
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
