package dev.leasehold.zookeeper;

import dev.leasehold.engine.Coalescer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The uncontended path's three calls (create an acquisition's node, list a directory, delete a
 * node; the deletes of many threads as one {@code multi}) sent on the session's ZooKeeper handle
 * itself, with ZooKeeper's asynchronous API, instead of through Curator's builders: Curator's
 * create in protected mode draws a {@code UUID} (a {@code SecureRandom}, one lock for the whole
 * JVM), builds a logger and a retry record per call, and relays each answer through its own event;
 * here an answer is one callback.
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

    /** Deletes per {@code multi}: far below what a request may weigh ({@code jute.maxbuffer}, 1 MB). */
    private static final int DELETES_PER_MULTI = 64;
    /**
     * How long deletes wait for one of theirs still on the wire before they leave without it: a
     * call that hangs (a frozen server) holds up the others no longer than this.
     */
    private static final long DELETE_STALL_MILLIS = 1_000;

    private final CuratorFramework curator;
    private final List<ACL> nodeAcl;
    /** One lane: every delete goes on the session's one handle. */
    private final Coalescer<String, Boolean> deletes = new Coalescer<>(
            Coalescer.Sender.of(this::deleteAlone, this::deleteTogether),
            path -> Boolean.TRUE, path -> path, DELETES_PER_MULTI, DELETE_STALL_MILLIS);

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

    /**
     * Deletes {@code path}: true if it was deleted, false if there was no such node, null if not
     * known. Deletes that threads ask for while one is on the wire leave together as one
     * {@code multi} ({@link Coalescer}): one write for the ensemble instead of one each.
     */
    CompletableFuture<Boolean> delete(String path) {
        return deletes.submit(path);
    }

    private CompletableFuture<Boolean> deleteAlone(String path) {
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

    /**
     * One {@code multi} deleting every path. A {@code multi} is all or nothing: if the servers
     * refused one of its deletes (a node already gone), none was made, and each is sent again
     * alone for its own answer. If the answer itself is missing (the connection lost with it), the
     * deletes may all have been made, so none is sent again: each answer is null, not known.
     */
    private List<CompletableFuture<Boolean>> deleteTogether(List<String> paths) {
        ZooKeeper handle = handle(curator);
        if (handle == null) {
            return Collections.nCopies(paths.size(), CompletableFuture.completedFuture(null));
        }
        List<Op> each = new ArrayList<>(paths.size());
        for (String path : paths) {
            each.add(Op.delete(fixed(path), -1));
        }
        CompletableFuture<Boolean> committed = new CompletableFuture<>();
        try {
            handle.multi(each, (rc, ignoredPath, context, results) -> committed.complete(
                    rc == KeeperException.Code.OK.intValue() ? Boolean.TRUE : results != null ? Boolean.FALSE : null), null);
        } catch (RuntimeException closing) {
            committed.complete(Boolean.FALSE);
        }
        List<CompletableFuture<Boolean>> answers = new ArrayList<>(paths.size());
        for (String path : paths) {
            answers.add(committed.thenCompose(all -> all == null ? CompletableFuture.completedFuture(null)
                    : all ? CompletableFuture.completedFuture(Boolean.TRUE) : deleteAlone(path)));
        }
        return answers;
    }

    private String fixed(String path) {
        return ZKPaths.fixForNamespace(curator.getNamespace(), path);
    }
}
