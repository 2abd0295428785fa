package dev.leasehold.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@code sync} and the listing of a directory, pipelined: both sent at once on one ZooKeeper
 * handle, in one round trip instead of two.
 *
 * <p>Why the listing is the leader's view, as if it had been sent after the {@code sync}'s answer:
 * the client library sends a handle's requests in the order they were made, on one connection (a
 * connection lost fails every request sent or queued on it), and the server runs one session's
 * requests in that order, holding a read behind an earlier {@code sync} until the {@code sync} is
 * done. Only the fast path is served here: on any failure, or when the handle is not at hand, the
 * answer is null and the caller goes the sequential way through Curator, with its retries.
 */
final class SyncedListing {

    private SyncedListing() {
    }

    /**
     * @param directory the directory (without the framework's namespace)
     * @return the children once both the {@code sync} and the listing succeeded; null (never an
     * exception) if either failed or could not be sent
     */
    static CompletableFuture<List<String>> send(CuratorFramework curator, String directory) {
        ZooKeeper handle = DirectCalls.handle(curator);
        if (handle == null) {
            return CompletableFuture.completedFuture(null);
        }
        String path = ZKPaths.fixForNamespace(curator.getNamespace(), directory);
        CompletableFuture<Boolean> synced = new CompletableFuture<>();
        CompletableFuture<List<String>> listed = new CompletableFuture<>();
        try {
            handle.sync(path, (rc, ignoredPath, ignoredContext) ->
                    synced.complete(rc == KeeperException.Code.OK.intValue()), null);
            handle.getChildren(path, false, (rc, ignoredPath, ignoredContext, children) ->
                    listed.complete(rc == KeeperException.Code.OK.intValue() ? children : null), null);
        } catch (RuntimeException closing) {
            synced.complete(false);
            listed.complete(null);
        }
        return synced.thenCombine(listed, (ok, children) -> ok ? children : null);
    }
}
