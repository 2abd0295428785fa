package dev.leasehold.etcd;

import dev.leasehold.LeaderInfo;
import dev.leasehold.etcd.internal.EtcdErrors;
import dev.leasehold.etcd.internal.QueueKeys;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.LeaderRecordBytes;
import dev.leasehold.spi.LeaderRecords;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Leader records on etcd: one key per term beside the election's queue,
 * {@code <prefix><escaped name>!leader!<token in hex>} (no {@code /} after the prefix, so it is in no
 * lock's queue directory), attached to the etcd lease of the leader's key, so it goes with the
 * client when that one crashes (its lease expires). That lease may be the client's session, which
 * outlives the term: so the key names the term, {@link #clear} deletes it, and a read takes only the
 * record of the head's own token. etcd's {@code Election.Proclaim} writes the value of the leader's own queue key instead;
 * here that value is the holder id the renewal compares against, so the record sits beside it.
 *
 * <p>A write is one transaction that succeeds only while the head of the queue (its oldest lock key)
 * is the term's own key, its create revision equal to the term's token: a deposed leader is not the
 * head any more, so it never overwrites its successor's record. A read takes the head and the record
 * in one transaction and returns the record only if it hangs on the head's lease.
 */
final class EtcdLeaderRecords implements LeaderRecords {

    private static final GetOption QUEUE_ORDER = GetOption.builder().isPrefix(true).withKeysOnly(true)
            .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build();

    private final Client client;
    private final String keyPrefix;
    private final String description;

    EtcdLeaderRecords(Client client, String keyPrefix, String description) {
        this.client = client;
        this.keyPrefix = keyPrefix;
        this.description = description;
    }

    @Override
    public CompletableFuture<Boolean> publish(String name, LeaderInfo info, Duration ttl) {
        QueueKeys queue = QueueKeys.of(keyPrefix, Args.lockName(name));
        String operation = "publishing the leader of '" + name + "'";
        return translated(client.getKVClient().get(queue.directory(), QUEUE_ORDER), operation).thenCompose(listed -> {
            Optional<KeyValue> head = head(queue, listed.getKvs());
            if (head.isEmpty() || head.get().getCreateRevision() != info.token()) {
                return CompletableFuture.completedFuture(false);
            }
            KeyValue own = head.get();
            return translated(client.getKVClient().txn()
                    .If(new Cmp(own.getKey(), Cmp.Op.EQUAL, CmpTarget.createRevision(info.token())))
                    .Then(Op.put(recordKey(name, info.token()), ByteSequence.from(LeaderRecordBytes.encode(info)),
                            PutOption.builder().withLeaseId(own.getLease()).build()))
                    .commit(), operation).thenApply(TxnResponse::isSucceeded);
        });
    }

    /** Deletes the record of term {@code token}: its lease may be a session, which lives on. */
    @Override
    public CompletableFuture<Void> clear(String name, long token) {
        return translated(client.getKVClient().delete(recordKey(Args.lockName(name), token)),
                "clearing the leader of '" + name + "'").thenApply(deleted -> null);
    }

    @Override
    public CompletableFuture<Optional<LeaderInfo>> read(String name) {
        QueueKeys queue = QueueKeys.of(keyPrefix, Args.lockName(name));
        return translated(client.getKVClient().txn()
                .Then(Op.get(queue.directory(), QUEUE_ORDER), Op.get(recordPrefix(name),
                        GetOption.builder().isPrefix(true).build()))
                .commit(), "reading the leader of '" + name + "'").thenApply(both -> {
                    Optional<KeyValue> head = head(queue, both.getGetResponses().get(0).getKvs());
                    if (head.isEmpty()) {
                        return Optional.empty();
                    }
                    ByteSequence wanted = recordKey(name, head.get().getCreateRevision());
                    Optional<KeyValue> record = both.getGetResponses().get(1).getKvs().stream()
                            .filter(kv -> kv.getKey().equals(wanted)).findFirst();
                    if (record.isEmpty() || record.get().getLease() != head.get().getLease()) {
                        return Optional.empty();
                    }
                    return LeaderRecordBytes.decode(record.get().getValue().getBytes(), head.get().getCreateRevision());
                });
    }

    /** The oldest lock key of the queue if it is exclusive (the holder); permits are not locks. */
    private static Optional<KeyValue> head(QueueKeys queue, List<KeyValue> keys) {
        return keys.stream().filter(key -> queue.kindOf(key.getKey()) != QueueKeys.PERMIT).findFirst()
                .filter(first -> queue.kindOf(first.getKey()) == QueueKeys.EXCLUSIVE);
    }

    /** Where the records of every term of {@code name} start (and, past them, those of longer names). */
    private ByteSequence recordPrefix(String name) {
        return ByteSequence.from(recordBase(name) + "!", StandardCharsets.UTF_8);
    }

    private ByteSequence recordKey(String name, long token) {
        return ByteSequence.from(recordBase(name) + "!" + Long.toHexString(token), StandardCharsets.UTF_8);
    }

    private String recordBase(String name) {
        return keyPrefix + name.replace("%", "%25").replace("/", "%2F") + "!leader";
    }

    private <T> CompletableFuture<T> translated(CompletableFuture<T> reply, String operation) {
        return reply.handle((value, error) -> {
            if (error != null) {
                throw EtcdErrors.translate(description, operation, error);
            }
            return value;
        });
    }
}
