package dev.leasehold.etcd;

import dev.leasehold.engine.Futures;
import dev.leasehold.etcd.internal.EtcdErrors;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.TxnOption;
import io.grpc.Status;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Keep-alives of one client's etcd leases, each confirmed by a linearizable read in the same raft
 * term, and the checks that renewed keys still stand; for the keys on a session lease, one
 * keep-alive per session however many keys renew, and one read of all their keys.
 *
 * <p>Why a keep-alive needs its read: etcd 3.4 (before 3.4.28) answers a keep-alive from the
 * leader's own lessor without checking that a quorum still follows it, so a leader cut off from its
 * peers renews leases that the majority's new leader never hears of. A linearizable read sent after
 * the answer is served only once the leader of its term has heard from a quorum; if that term is
 * still the keep-alive's, no other leader was elected before the keep-alive was answered, and the
 * lessor that renewed the lease was the real leader's. A new term in between means the renewal may
 * have reached a deposed leader: it is sent again, in the new term, until the retry bound.
 *
 * <p>Renewals of keys on sessions wait in a buffer until {@link #flush()} (the engine renews in
 * batches and flushes after each). A flush sends, per session, a keep-alive only if the session is
 * not known to live at least two thirds of the longest ttl in the batch from now (its latest
 * confirmed keep-alive or grant is more than a third of the ttl old), joining a keep-alive of the
 * session still in flight rather than sending another; then one read finds every key of the batch
 * (a {@code Range} for one key, a read-only {@code Txn} of keys-only ranges for several, at most
 * {@value #MAX_READS_PER_TXN} per {@code Txn}), which confirms that keep-alive when there is one. A
 * key that is gone (a broken lock), or that has another create revision than the one its acquisition
 * made (a key of the same name made since: {@link KeyNumbers}), fails its own renewal only.
 */
final class KeepAlives {

    /** What a confirmed keep-alive and its read found. */
    enum Liveness { ALIVE, LEASE_GONE, KEY_GONE }

    /** Ranges per read-only {@code Txn}: etcd refuses more than its {@code --max-txn-ops} (128 by default). */
    static final int MAX_READS_PER_TXN = 64;

    private static final long RETRY_MILLIS = 50;
    private static final GetOption KEYS_ONLY = GetOption.builder().withKeysOnly(true).build();
    private static final TxnOption SAFE_TO_REPEAT = TxnOption.builder().withAutoRetry().build();

    /** A renewal waiting for the next flush. */
    private record Pending(Acquisitions.Acquisition acquisition, long ttlNanos, CompletableFuture<Boolean> renewed) {
    }

    /** A keep-alive's answer: the raft term it came in, and the send time of the call; {@link #GONE} if the lease is gone. */
    record Answer(long term, long sentAtNanos) {
        static final Answer GONE = new Answer(-1, 0);
    }

    /** A read of some keys: the raft term it was served in (-1 if its parts disagree), and each key's create revision (0: absent). */
    private record Read(long term, long[] created) {
    }

    private final Client client;
    private final Sessions sessions;
    private final long retryNanos;
    private final Queue<Pending> pending = new ConcurrentLinkedQueue<>();

    /**
     * @param retryForNanos how long a keep-alive refused for want of a leader (an election going on),
     *                      or answered in a term that has passed by the time of its read, is sent again
     */
    KeepAlives(Client client, Sessions sessions, long retryForNanos) {
        this.client = client;
        this.sessions = sessions;
        this.retryNanos = retryForNanos;
    }

    /**
     * Queues the renewal of {@code acquisition}, a key on a session, until the next {@link #flush()}.
     *
     * @return true once the session is known to live on and the key stood; false if the session or
     *         the key was gone
     */
    CompletableFuture<Boolean> renew(Acquisitions.Acquisition acquisition, long ttlNanos) {
        CompletableFuture<Boolean> renewed = new CompletableFuture<>();
        pending.add(new Pending(acquisition, ttlNanos, renewed));
        return renewed;
    }

    /** Sends the renewals queued since the last flush: per session, at most one keep-alive and one read. */
    void flush() {
        Map<Sessions.Session, List<Pending>> bySession = new LinkedHashMap<>();
        for (Pending each; (each = pending.poll()) != null; ) {
            bySession.computeIfAbsent(each.acquisition().session(), session -> new ArrayList<>()).add(each);
        }
        bySession.forEach(this::renew);
    }

    private void renew(Sessions.Session session, List<Pending> batch) {
        List<ByteSequence> keys = new ArrayList<>(batch.size());
        long ttlNanos = 0;
        for (Pending each : batch) {
            keys.add(each.acquisition().key());
            ttlNanos = Math.max(ttlNanos, each.ttlNanos());
        }
        CompletableFuture<long[]> created = session.covers(System.nanoTime(), ttlNanos - ttlNanos / 3)
                ? read(keys, session.leaseId).thenApply(Read::created)
                : confirmed(session.leaseId, session, keys, System.nanoTime() + retryNanos);
        created.whenComplete((found, error) -> {
            if (error != null) {
                batch.forEach(each -> each.renewed().completeExceptionally(Futures.unwrap(error)));
                return;
            }
            if (found == null) {
                sessions.gone(session, batch.stream().map(each -> each.acquisition().lost()).collect(Collectors.toSet()));
                batch.forEach(each -> each.renewed().complete(false));
                return;
            }
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).renewed().complete(batch.get(i).acquisition().owns(found[i]));
            }
        });
    }

    /**
     * One confirmed keep-alive of {@code acquisition}'s lease, at once (an acquire on a session
     * last confirmed long ago, or a renewal of a key on a lease of its own); with {@code keyToo}, its
     * read also finds the key.
     */
    CompletableFuture<Liveness> keepAlive(Acquisitions.Acquisition acquisition, boolean keyToo) {
        return confirmed(acquisition.leaseId(), acquisition.session(), List.of(acquisition.key()),
                System.nanoTime() + retryNanos).thenApply(created -> {
                    if (created == null) {
                        return Liveness.LEASE_GONE;
                    }
                    return keyToo && !acquisition.owns(created[0]) ? Liveness.KEY_GONE : Liveness.ALIVE;
                });
    }

    /**
     * Keeps lease {@code leaseId} alive (joining a keep-alive of {@code session} in flight, if it is
     * one) and, once answered, reads {@code keys} in one read; if that read came in the
     * keep-alive's raft term, a session's bound moves to the keep-alive's send
     * ({@link Sessions.Session#confirmed}).
     *
     * @return each key's create revision (0 if absent or on another lease), or null if the lease is gone
     */
    private CompletableFuture<long[]> confirmed(long leaseId, Sessions.Session session, List<ByteSequence> keys,
                                                long giveUpAtNanos) {
        CompletableFuture<Answer> answer = session == null ? keepAliveOnce(leaseId, giveUpAtNanos)
                : session.keepAlive(() -> keepAliveOnce(leaseId, giveUpAtNanos));
        return answer.thenCompose(kept -> {
            if (kept == Answer.GONE) {
                return CompletableFuture.completedFuture(null);
            }
            return read(keys, leaseId).thenCompose(read -> {
                if (read.term() == kept.term()) {
                    if (session != null) {
                        session.confirmed(kept.sentAtNanos());
                    }
                    return CompletableFuture.completedFuture(read.created());
                }
                if (System.nanoTime() - giveUpAtNanos < 0) {
                    return confirmed(leaseId, session, keys, giveUpAtNanos);
                }
                return CompletableFuture.failedFuture(Status.UNAVAILABLE.withDescription("the keep-alive of an etcd"
                        + " lease could not be confirmed by a quorum (elections going on)").asRuntimeException());
            });
        });
    }

    /** One {@code LeaseKeepAlive}, sent again while etcd has no leader, until {@code giveUpAtNanos}. */
    private CompletableFuture<Answer> keepAliveOnce(long leaseId, long giveUpAtNanos) {
        long sentAt = System.nanoTime();
        return client.getLeaseClient().keepAliveOnce(leaseId).handle((response, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(response.getTTL() > 0
                        ? new Answer(response.getHeader().getRaftTerm(), sentAt) : Answer.GONE);
            }
            if (EtcdErrors.isLeaseNotFound(error)) {
                return CompletableFuture.completedFuture(Answer.GONE);
            }
            if (Status.fromThrowable(Futures.unwrap(error)).getCode() == Status.Code.UNAVAILABLE
                    && System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS) - giveUpAtNanos < 0) {
                return CompletableFuture.supplyAsync(() -> null,
                                CompletableFuture.delayedExecutor(RETRY_MILLIS, TimeUnit.MILLISECONDS))
                        .thenCompose(ignored -> keepAliveOnce(leaseId, giveUpAtNanos));
            }
            return CompletableFuture.<Answer>failedFuture(Futures.unwrap(error));
        }).thenCompose(answer -> answer);
    }

    /**
     * Reads {@code keys}, each expected on lease {@code leaseId}, in linearizable reads: one
     * {@code Range} for one key, read-only {@code Txn}s for more.
     */
    private CompletableFuture<Read> read(List<ByteSequence> keys, long leaseId) {
        if (keys.size() == 1) {
            return client.getKVClient().get(keys.get(0), KEYS_ONLY).thenApply(response ->
                    new Read(response.getHeader().getRaftTerm(), new long[] {created(response, leaseId)}));
        }
        List<CompletableFuture<Read>> parts = new ArrayList<>();
        for (int from = 0; from < keys.size(); from += MAX_READS_PER_TXN) {
            List<ByteSequence> part = keys.subList(from, Math.min(keys.size(), from + MAX_READS_PER_TXN));
            Op[] reads = part.stream().map(key -> Op.get(key, KEYS_ONLY)).toArray(Op[]::new);
            parts.add(client.getKVClient().txn(SAFE_TO_REPEAT).Then(reads).commit().thenApply(response -> {
                List<GetResponse> each = response.getGetResponses();
                long[] found = new long[each.size()];
                for (int i = 0; i < found.length; i++) {
                    found[i] = created(each.get(i), leaseId);
                }
                return new Read(response.getHeader().getRaftTerm(), found);
            }));
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            long term = parts.get(0).join().term();
            long[] created = new long[keys.size()];
            int at = 0;
            for (CompletableFuture<Read> part : parts) {
                Read read = part.join();
                term = read.term() == term ? term : -1;
                System.arraycopy(read.created(), 0, created, at, read.created().length);
                at += read.created().length;
            }
            return new Read(term, created);
        });
    }

    /**
     * The create revision of the one key a read of it found on lease {@code leaseId}, 0 if it found
     * none there. A key found on another lease is not the holder's either: an extension whose answer
     * was lost may have moved it onto a lease nothing keeps alive, whose expiry deletes it while
     * this lease lives on (the move's {@code Txn} keeps the key's create revision).
     */
    private static long created(GetResponse response, long leaseId) {
        if (response.getKvs().isEmpty() || response.getKvs().get(0).getLease() != leaseId) {
            return 0;
        }
        return response.getKvs().get(0).getCreateRevision();
    }
}
