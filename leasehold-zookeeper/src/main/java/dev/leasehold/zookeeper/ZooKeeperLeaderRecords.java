package dev.leasehold.zookeeper;

import dev.leasehold.LeaderInfo;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.LeaderRecordBytes;
import dev.leasehold.spi.LeaderRecords;
import org.apache.curator.framework.CuratorFramework;
import dev.leasehold.zookeeper.BackgroundCalls.Reply;
import dev.leasehold.zookeeper.BackgroundCalls.Sender;
import org.apache.zookeeper.KeeperException;

import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static dev.leasehold.zookeeper.BackgroundCalls.code;
import static dev.leasehold.zookeeper.BackgroundCalls.found;

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
            // The result code first: a lost connection also leaves the stat null, and is no ended term.
            return call(operation, callback -> curator.checkExists().inBackground(callback).forPath(path),
                    event -> found(event, ensemble, operation) ? event : null)
                    .thenCompose(exists -> {
                        if (exists == null || exists.getStat().getCzxid() != info.token()) {
                            return CompletableFuture.completedFuture(false);
                        }
                        return call(operation, callback -> curator.setData().withVersion(exists.getStat().getVersion())
                                .inBackground(callback).forPath(path, LeaderRecordBytes.encode(info)),
                                // A node gone or changed since the exists: no longer the term's to write.
                                written -> code(written) != KeeperException.Code.BADVERSION
                                        && found(written, ensemble, operation));
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
            return call(operation, callback -> curator.getData().inBackground(callback).forPath(head.get()),
                    read -> found(read, ensemble, operation)
                            ? LeaderRecordBytes.decode(read.getData(), read.getStat().getCzxid())
                            : Optional.<LeaderInfo>empty());
        });
    }

    /** The path of the head of the queue of {@code name} if it is an exclusive node (the holder); else empty. */
    private CompletableFuture<Optional<String>> head(String name, String operation) {
        String directory = LockPaths.directory(Args.lockName(name));
        return call(operation, callback -> curator.getChildren().inBackground(callback).forPath(directory), listed -> {
            if (!found(listed, ensemble, operation)) {
                return Optional.empty();
            }
            return listed.getChildren().stream().map(NodeName::parse).flatMap(Optional::stream)
                    .min(Comparator.comparingLong(NodeName::sequence))
                    .filter(first -> first.kind() == NodeName.EXCLUSIVE)
                    .map(first -> directory + "/" + first.node());
        });
    }

    private <T> CompletableFuture<T> call(String operation, Sender sender, Reply<T> reply) {
        return BackgroundCalls.call(ensemble, operation, sender, reply);
    }
}
