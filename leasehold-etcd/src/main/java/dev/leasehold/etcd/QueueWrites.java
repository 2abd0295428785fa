package dev.leasehold.etcd;

import dev.leasehold.engine.Coalescer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.TxnOption;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The two writes of one client's acquisitions to the queues: an acquisition's key created together
 * with the read of its queue ({@link #enqueue}), and deleted ({@link #delete}). Those of keys on a
 * session lease that the client's threads send while one is on the wire go out together
 * ({@link Coalescer}): the enqueues of one session as one {@code Txn} that creates every key if none
 * exists yet and reads every queue, never two of one lock name, the deletes as one {@code Txn} of
 * deletions. Each is one raft proposal, however many acquisitions or releases it carries; alone, an
 * enqueue is one such {@code Txn} for its one key, and a delete a {@code Txn} guarded on the key's value.
 *
 * <p>A {@code Txn} of enqueues is flat (puts and ranges at its top level), not one nested
 * {@code Txn} per acquisition: etcd releases before the fix of etcd-io/etcd#21689 (3.4.23 among
 * them) skip the user's key permissions for a put nested in a {@code Txn}, so nested transactions
 * would create keys the user may not write. If the {@code Txn} does not create the keys (one of them
 * exists: a repeat), or fails (etcd refused one of its keys, say for want of permission), each of its
 * acquisitions is sent again alone, and gets what it would have got alone: creating a key only if
 * absent, an enqueue is safe to repeat. A delete is guarded on the key's value, the holder id of the
 * acquisition that created it, so a delete that lands late never deletes a later acquisition's key
 * of the same name ({@link KeyNumbers}); a {@code Txn} of deletes deletes its keys if each still
 * holds its value, and if one does not (it was broken, or lost), each is sent again alone. A failed
 * {@code Txn} of deletes fails every release in it, each of which keeps its key to be released
 * again, as a lone failed delete does.
 *
 * <p>Keys created by one {@code Txn} share its revision, so acquisitions of different names that went
 * out together get equal create revisions (tokens); tokens are only ordered within a name, and two
 * acquisitions of one name never go out together.
 */
final class QueueWrites {

    /**
     * What an enqueue found.
     *
     * @param created  whether this call created the key (false: a repeat found it)
     * @param queue    the queue's keys, oldest first (with values when the key was found, not created)
     * @param revision the store's revision after the call: a watch from the next one misses nothing
     */
    record Enqueued(boolean created, List<KeyValue> queue, long revision) {
    }

    /** One acquisition's key to create, on {@code leaseId}, in the queue under {@code directory}. */
    private record Enqueue(ByteSequence key, ByteSequence value, long leaseId, ByteSequence directory) {
    }

    /** One acquisition's key to delete if it still holds {@code value}, the acquisition's holder id. */
    private record Delete(ByteSequence key, ByteSequence value) {
    }

    private static final GetOption QUEUE_ORDER = GetOption.builder()
            .isPrefix(true)
            .withKeysOnly(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .build();
    private static final GetOption QUEUE_ORDER_WITH_VALUES = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .build();
    /**
     * Acquisitions per {@code Txn} of enqueues (two operations and a comparison each) and releases per
     * {@code Txn} of deletes: etcd refuses more than its {@code --max-txn-ops} (128 by default).
     */
    private static final int ENQUEUES_PER_TXN = 32;
    private static final int DELETES_PER_TXN = 64;
    private static final TxnOption SAFE_TO_REPEAT = TxnOption.builder().withAutoRetry().build();

    private final Client client;
    private final Coalescer<Enqueue, Enqueued> enqueues;
    private final Coalescer<Delete, Boolean> deletes;

    /** @param stall how long writes wait for one of theirs on the wire before they leave without it */
    QueueWrites(Client client, Duration stall) {
        this.client = client;
        this.enqueues = new Coalescer<>(Coalescer.Sender.of(this::enqueueAlone, this::enqueueTogether),
                Enqueue::leaseId, Enqueue::directory, ENQUEUES_PER_TXN, stall.toMillis());
        this.deletes = new Coalescer<>(Coalescer.Sender.of(this::deleteAlone, this::deleteTogether),
                request -> Boolean.TRUE, Delete::key, DELETES_PER_TXN, stall.toMillis());
    }

    /**
     * Creates {@code key} with {@code value} on etcd lease {@code leaseId} if absent, and reads the
     * queue under {@code directory}, in one transaction; a repeat (jetcd repeats it after a failed
     * connection) finds the key and reads the queue with its values, so that the caller can tell the
     * key is its own. With {@code coalesce} (a key on a session), it may share its call with the
     * enqueues on the same lease that the client sends meanwhile.
     */
    CompletableFuture<Enqueued> enqueue(ByteSequence key, ByteSequence value, long leaseId, ByteSequence directory,
                                        boolean coalesce) {
        Enqueue request = new Enqueue(key, value, leaseId, directory);
        return coalesce ? enqueues.submit(request) : enqueueAlone(request);
    }

    /**
     * Deletes {@code key} if it still holds {@code value}, with other deletes sent meanwhile.
     *
     * @return whether it was there with that value
     */
    CompletableFuture<Boolean> delete(ByteSequence key, ByteSequence value) {
        return deletes.submit(new Delete(key, value));
    }

    private CompletableFuture<Enqueued> enqueueAlone(Enqueue request) {
        return client.getKVClient().txn(SAFE_TO_REPEAT)
                .If(absent(request))
                .Then(created(request))
                .Else(found(request))
                .commit()
                .thenApply(response -> enqueued(response, response.getHeader().getRevision()));
    }

    /**
     * One {@code Txn} that creates every key if none exists and reads every queue; if it does not
     * (a key exists, or etcd refused the {@code Txn}), each request is sent alone instead.
     */
    private List<CompletableFuture<Enqueued>> enqueueTogether(List<Enqueue> requests) {
        Cmp[] allAbsent = requests.stream().map(QueueWrites::absent).toArray(Cmp[]::new);
        Op[] createAndRead = requests.stream().flatMap(request -> Stream.of(created(request))).toArray(Op[]::new);
        CompletableFuture<List<CompletableFuture<Enqueued>>> answers = client.getKVClient().txn(SAFE_TO_REPEAT)
                .If(allAbsent).Then(createAndRead).commit()
                .thenApply(response -> response.isSucceeded() ? together(response) : null)
                .exceptionally(refused -> null)
                .thenApply(together -> together != null ? together
                        : requests.stream().map(this::enqueueAlone).toList());
        return IntStream.range(0, requests.size()).mapToObj(i -> answers.thenCompose(each -> each.get(i))).toList();
    }

    /** The answers of a {@code Txn} that created every key: each queue read, in the requests' order. */
    private static List<CompletableFuture<Enqueued>> together(TxnResponse response) {
        long revision = response.getHeader().getRevision();
        return response.getGetResponses().stream()
                .map(queue -> CompletableFuture.completedFuture(new Enqueued(true, queue.getKvs(), revision)))
                .toList();
    }

    private CompletableFuture<Boolean> deleteAlone(Delete request) {
        return client.getKVClient().txn().If(holds(request)).Then(Op.delete(request.key(), DeleteOption.DEFAULT))
                .commit().thenApply(TxnResponse::isSucceeded);
    }

    /**
     * One {@code Txn} that deletes every key if each still holds its value; if one does not, each
     * request is sent again alone. A failed {@code Txn} fails every request in it.
     */
    private List<CompletableFuture<Boolean>> deleteTogether(List<Delete> requests) {
        Cmp[] allHeld = requests.stream().map(QueueWrites::holds).toArray(Cmp[]::new);
        Op[] each = requests.stream().map(request -> Op.delete(request.key(), DeleteOption.DEFAULT)).toArray(Op[]::new);
        CompletableFuture<List<CompletableFuture<Boolean>>> answers = client.getKVClient().txn()
                .If(allHeld).Then(each).commit()
                .thenApply(response -> response.isSucceeded()
                        ? requests.stream().map(request -> CompletableFuture.completedFuture(true)).toList()
                        : requests.stream().map(this::deleteAlone).toList());
        return IntStream.range(0, requests.size()).mapToObj(i -> answers.thenCompose(all -> all.get(i))).toList();
    }

    private static Cmp holds(Delete request) {
        return new Cmp(request.key(), Cmp.Op.EQUAL, CmpTarget.value(request.value()));
    }

    private static Cmp absent(Enqueue request) {
        return new Cmp(request.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(0));
    }

    private static Op[] created(Enqueue request) {
        return new Op[] {Op.put(request.key(), request.value(), PutOption.builder().withLeaseId(request.leaseId()).build()),
                Op.get(request.directory(), QUEUE_ORDER)};
    }

    private static Op[] found(Enqueue request) {
        return new Op[] {Op.get(request.directory(), QUEUE_ORDER_WITH_VALUES)};
    }

    private static Enqueued enqueued(TxnResponse response, long revision) {
        return new Enqueued(response.isSucceeded(), response.getGetResponses().get(0).getKvs(), revision);
    }
}
