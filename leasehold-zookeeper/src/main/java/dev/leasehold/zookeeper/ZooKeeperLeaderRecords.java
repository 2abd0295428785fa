package dev.leasehold.zookeeper;

import dev.leasehold.LeaderInfo;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.LeaderRecordBytes;
import dev.leasehold.spi.LeaderRecords;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Leader records on ZooKeeper: the data of the term's own lock node, the head of the election's
 * queue, written once the candidate was elected. It goes with the node: a resigned leader's record
 * is deleted with its node, and a crashed one's when the ensemble expires its session, so no ttl
 * and no clearing are needed. A write is conditional on the head's czxid being the term's token and
 * on the node's version, so only the term itself writes its own node.
 */
final class ZooKeeperLeaderRecords implements LeaderRecords {

    private final CuratorFramework curator;
    private final String ensemble;

    ZooKeeperLeaderRecords(CuratorFramework curator, String ensemble) {
        this.curator = curator;
        this.ensemble = ensemble;
    }

    @Override
    public CompletableFuture<Boolean> publish(String name, LeaderInfo info, Duration ttl) {
        String operation = "publishing the leader of '" + name + "'";
        return head(name, operation).thenCompose(head -> {
            if (head.isEmpty()) {
                return CompletableFuture.completedFuture(false);
            }
            String path = head.get();
            return call(operation, callback -> curator.checkExists().inBackground(callback).forPath(path))
                    .thenCompose(exists -> {
                        if (exists.getStat() == null || exists.getStat().getCzxid() != info.token()) {
                            return CompletableFuture.completedFuture(false);
                        }
                        return call(operation, callback -> curator.setData().withVersion(exists.getStat().getVersion())
                                .inBackground(callback).forPath(path, LeaderRecordBytes.encode(info)))
                                .thenApply(written -> {
                                    KeeperException.Code code = code(written);
                                    if (code == KeeperException.Code.NONODE || code == KeeperException.Code.BADVERSION) {
                                        return false;
                                    }
                                    if (code != KeeperException.Code.OK) {
                                        throw ZooKeeperErrors.of(ensemble, operation, code);
                                    }
                                    return true;
                                });
                    });
        });
    }

    /** Nothing to do: the record is the term's node's data, and the release deletes the node. */
    @Override
    public CompletableFuture<Void> clear(String name, long token) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Optional<LeaderInfo>> read(String name) {
        String operation = "reading the leader of '" + name + "'";
        return head(name, operation).thenCompose(head -> {
            if (head.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.<LeaderInfo>empty());
            }
            return call(operation, callback -> curator.getData().inBackground(callback).forPath(head.get()))
                    .thenApply(read -> {
                        KeeperException.Code code = code(read);
                        if (code == KeeperException.Code.NONODE) {
                            return Optional.<LeaderInfo>empty();
                        }
                        if (code != KeeperException.Code.OK) {
                            throw ZooKeeperErrors.of(ensemble, operation, code);
                        }
                        return LeaderRecordBytes.decode(read.getData(), read.getStat().getCzxid());
                    });
        });
    }

    /** The path of the head of the queue of {@code name} if it is an exclusive node (the holder); else empty. */
    private CompletableFuture<Optional<String>> head(String name, String operation) {
        String directory = LockPaths.directory(Args.lockName(name));
        return call(operation, callback -> curator.getChildren().inBackground(callback).forPath(directory))
                .thenApply(listed -> {
                    KeeperException.Code code = code(listed);
                    if (code == KeeperException.Code.NONODE) {
                        return Optional.empty();
                    }
                    if (code != KeeperException.Code.OK) {
                        throw ZooKeeperErrors.of(ensemble, operation, code);
                    }
                    return listed.getChildren().stream().map(NodeName::parse).flatMap(Optional::stream)
                            .min(Comparator.comparingLong(NodeName::sequence))
                            .filter(first -> first.kind() == NodeName.EXCLUSIVE)
                            .map(first -> directory + "/" + first.node());
                });
    }

    private CompletableFuture<CuratorEvent> call(String operation, Sender sender) {
        CompletableFuture<CuratorEvent> reply = new CompletableFuture<>();
        try {
            sender.send((client, event) -> reply.complete(event));
        } catch (Exception error) {
            reply.completeExceptionally(ZooKeeperErrors.of(ensemble, operation, error));
        }
        return reply;
    }

    private static KeeperException.Code code(CuratorEvent event) {
        return KeeperException.Code.get(event.getResultCode());
    }

    @FunctionalInterface
    private interface Sender {
        Object send(BackgroundCallback callback) throws Exception;
    }
}
