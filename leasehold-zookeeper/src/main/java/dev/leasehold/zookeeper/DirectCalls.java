package dev.leasehold.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The uncontended path's three calls (create an acquisition's node, list a directory, delete a
 * node) sent on the session's ZooKeeper handle itself, with ZooKeeper's asynchronous API, instead
 * of through Curator's builders: Curator's create in protected mode draws a {@code UUID} (a
 * {@code SecureRandom}, one lock for the whole JVM), builds a logger and a retry record per call,
 * and relays each answer through its own event; here an answer is one callback.
 *
 * <p>Only the plain outcome is served. Whatever else happens (no connection, a connection lost
 * with the request, an expired session, any error), the answer says so and the caller goes
 * through Curator, with its retries and its waiting for a connection. A create whose answer is
 * lost may have made the node: its name holds the acquisition's holder id, which is unique to the
 * acquisition, so the caller finds it by that id (as Curator's protected mode finds its node by
 * its protection id) before it creates another.
 *
 * <p>The nodes carry the ACL this client's own framework gives lock nodes
 * ({@link DigestAcls}, or open), so this serves only a framework the client built itself: over a
 * framework given to {@link ZooKeeperLocks#using}, whose ACL provider is its owner's, every call
 * goes through Curator.
 */
final class DirectCalls {

    /** What a create came to. */
    enum Outcome {
        /** The node exists: {@link Created#name()} and {@link Created#stat()} describe it. */
        MADE,
        /** Certainly no node: the request was not sent, or the directory does not exist. */
        NOT_MADE,
        /** Perhaps a node: the request was sent, and no answer says what became of it. */
        UNKNOWN
    }

    /**
     * @param name the node's name (its last path segment), when made
     * @param stat the node's stat, when made
     */
    record Created(Outcome outcome, String name, Stat stat) {
        static final Created NOT_MADE = new Created(Outcome.NOT_MADE, null, null);
        static final Created UNKNOWN = new Created(Outcome.UNKNOWN, null, null);
    }

    private static final byte[] NO_DATA = new byte[0];

    private final CuratorFramework curator;
    private final List<ACL> nodeAcl;

    /**
     * @param nodeAcl the ACL of an acquisition's node, as the client's own framework would give it
     */
    DirectCalls(CuratorFramework curator, List<ACL> nodeAcl) {
        this.curator = curator;
        this.nodeAcl = nodeAcl;
    }

    /**
     * The session's current handle, or null if the framework is not connected (or closing), in
     * which case nothing should be sent on it.
     */
    static ZooKeeper handle(CuratorFramework curator) {
        try {
            return curator.getZookeeperClient().isConnected() ? curator.getZookeeperClient().getZooKeeper() : null;
        } catch (Exception notReady) {
            return null;
        }
    }

    /**
     * Creates an ephemeral sequential node named {@code prefix} + sequence in {@code directory}
     * (a path without the framework's namespace).
     */
    CompletableFuture<Created> create(String directory, String prefix) {
        ZooKeeper handle = handle(curator);
        if (handle == null) {
            return CompletableFuture.completedFuture(Created.NOT_MADE);
        }
        CompletableFuture<Created> created = new CompletableFuture<>();
        try {
            handle.create(fixed(directory) + "/" + prefix, NO_DATA, nodeAcl, CreateMode.EPHEMERAL_SEQUENTIAL,
                    (rc, path, context, name, stat) -> created.complete(
                            rc == KeeperException.Code.OK.intValue() ? new Created(Outcome.MADE, ZKPaths.getNodeFromPath(name), stat)
                                    : rc == KeeperException.Code.NONODE.intValue() ? Created.NOT_MADE : Created.UNKNOWN),
                    null);
        } catch (RuntimeException closing) {
            // The handle refused the request (closing): it never reached a server.
            created.complete(Created.NOT_MADE);
        }
        return created;
    }

    /** The children of {@code directory} (none if it does not exist), or null if that is not known. */
    CompletableFuture<List<String>> list(String directory) {
        ZooKeeper handle = handle(curator);
        if (handle == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<List<String>> listed = new CompletableFuture<>();
        try {
            handle.getChildren(fixed(directory), false, (rc, path, context, children) -> listed.complete(
                    rc == KeeperException.Code.OK.intValue() ? children
                            : rc == KeeperException.Code.NONODE.intValue() ? List.of() : null), null);
        } catch (RuntimeException closing) {
            listed.complete(null);
        }
        return listed;
    }

    /** Deletes {@code path}: true if it was deleted, false if there was no such node, null if not known. */
    CompletableFuture<Boolean> delete(String path) {
        ZooKeeper handle = handle(curator);
        if (handle == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Boolean> deleted = new CompletableFuture<>();
        try {
            handle.delete(fixed(path), -1, (rc, ignoredPath, context) -> deleted.complete(
                    rc == KeeperException.Code.OK.intValue() ? Boolean.TRUE
                            : rc == KeeperException.Code.NONODE.intValue() ? Boolean.FALSE : null), null);
        } catch (RuntimeException closing) {
            deleted.complete(null);
        }
        return deleted;
    }

    private String fixed(String path) {
        return ZKPaths.fixForNamespace(curator.getNamespace(), path);
    }
}
