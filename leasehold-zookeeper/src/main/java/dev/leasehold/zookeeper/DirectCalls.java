package dev.leasehold.zookeeper;

import dev.leasehold.engine.Coalescer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The uncontended path's three calls (create an acquisition's node, list a directory, delete a
 * node; the creates, and the deletes, of many threads as one {@code multi}) sent on the session's
 * ZooKeeper handle itself, with ZooKeeper's asynchronous API, instead of through Curator's builders:
 * Curator's create in protected mode draws a {@code UUID} (a {@code SecureRandom}, one lock for the
 * whole JVM), builds a logger and a retry record per call, and relays each answer through its own
 * event; here an answer is one callback.
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

    /**
     * A create waiting to be sent: the node's directory and name prefix, and the listing of the
     * directory to send right behind it (null: none).
     */
    private record Placement(String directory, String prefix, CompletableFuture<List<String>> listing) {

        String path(DirectCalls calls) {
            return calls.fixed(directory) + "/" + prefix;
        }

        void listed(List<String> children) {
            if (listing != null) {
                listing.complete(children);
            }
        }

        /** The same create without a listing: its listing was sent already. */
        Placement unlisted() {
            return new Placement(directory, prefix, null);
        }
    }

    /**
     * What a {@code multi} came to: applied (each operation's result), refused (nothing applied: the
     * servers turned one operation down, or the request never left), or not known (no answer).
     */
    private record MultiAnswer(List<OpResult> results, boolean refused) {
        static final MultiAnswer REFUSED = new MultiAnswer(null, true);
        static final MultiAnswer NOT_KNOWN = new MultiAnswer(null, false);

        /** A refusal comes with the operations' error results; a lost answer with none. */
        static MultiAnswer of(int rc, List<OpResult> results) {
            return rc == KeeperException.Code.OK.intValue() ? new MultiAnswer(results, false)
                    : results != null ? REFUSED : NOT_KNOWN;
        }

        boolean applied() {
            return results != null;
        }
    }

    private static final byte[] NO_DATA = new byte[0];

    /** Creates or deletes per {@code multi}: far below what a request may weigh ({@code jute.maxbuffer}, 1 MB). */
    private static final int OPS_PER_MULTI = 64;
    /**
     * How long creates or deletes wait for one of theirs still on the wire before they leave
     * without it: a call that hangs (a frozen server) holds up the others no longer than this.
     */
    private static final long STALL_MILLIS = 1_000;

    private final CuratorFramework curator;
    private final List<ACL> nodeAcl;
    /** One lane each: every call goes on the session's one handle. */
    private final Coalescer<Placement, Created> creates = new Coalescer<>(
            Coalescer.Sender.of(this::createAlone, this::createTogether),
            placement -> Boolean.TRUE, Placement::directory, OPS_PER_MULTI, STALL_MILLIS);
    private final Coalescer<String, Boolean> deletes = new Coalescer<>(
            Coalescer.Sender.of(this::deleteAlone, this::deleteTogether),
            path -> Boolean.TRUE, path -> path, OPS_PER_MULTI, STALL_MILLIS);

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
     * (a path without the framework's namespace) and, if {@code listing} is given, lists the
     * directory right behind the create on the same handle, completing {@code listing} with the
     * children (null if not known). Creates that threads ask for while one is on the wire wait for
     * it and leave together as one {@code multi} ({@link Coalescer}), never two of one directory,
     * each listing sent right behind that {@code multi}.
     */
    CompletableFuture<Created> create(String directory, String prefix, CompletableFuture<List<String>> listing) {
        return creates.submit(new Placement(directory, prefix, listing));
    }

    private CompletableFuture<Created> createAlone(Placement placement) {
        ZooKeeper handle = handle(curator);
        if (handle == null) {
            placement.listed(null);
            return CompletableFuture.completedFuture(Created.NOT_MADE);
        }
        CompletableFuture<Created> created = new CompletableFuture<>();
        try {
            handle.create(placement.path(this), NO_DATA, nodeAcl, CreateMode.EPHEMERAL_SEQUENTIAL,
                    (rc, path, context, name, stat) -> created.complete(
                            rc == KeeperException.Code.OK.intValue() ? new Created(Outcome.MADE, ZKPaths.getNodeFromPath(name), stat)
                                    : rc == KeeperException.Code.NONODE.intValue() ? Created.NOT_MADE : Created.UNKNOWN),
                    null);
        } catch (RuntimeException closing) {
            // The handle refused the request (closing): it never reached a server.
            created.complete(Created.NOT_MADE);
        }
        listBehind(handle, placement);
        return created;
    }

    /**
     * One {@code multi} creating every node, each with its stat ({@code create2}). All or nothing:
     * if the servers refused it (a directory missing: a name's first acquire), no node was made and
     * each create is sent again alone; if the answer is missing, each node may have been made, so
     * each outcome is not known and the caller finds its node by its holder id.
     */
    private List<CompletableFuture<Created>> createTogether(List<Placement> placements) {
        ZooKeeper handle = handle(curator);
        if (handle == null) {
            placements.forEach(placement -> placement.listed(null));
            return Collections.nCopies(placements.size(), CompletableFuture.completedFuture(Created.NOT_MADE));
        }
        CreateOptions options = CreateOptions.newBuilder(nodeAcl, CreateMode.EPHEMERAL_SEQUENTIAL).build();
        List<Op> each = new ArrayList<>(placements.size());
        for (Placement placement : placements) {
            each.add(Op.create(placement.path(this), NO_DATA, options));
        }
        CompletableFuture<MultiAnswer> answered = multi(handle, each);
        for (Placement placement : placements) {
            listBehind(handle, placement);
        }
        List<CompletableFuture<Created>> answers = new ArrayList<>(placements.size());
        for (int i = 0; i < placements.size(); i++) {
            int index = i;
            Placement placement = placements.get(i);
            answers.add(answered.thenCompose(answer -> answer.applied()
                    ? CompletableFuture.completedFuture(made((OpResult.CreateResult) answer.results().get(index)))
                    : answer.refused() ? createAlone(placement.unlisted())
                    : CompletableFuture.completedFuture(Created.UNKNOWN)));
        }
        return answers;
    }

    /** A node the servers made, or not known without its stat (a server that answers no stat in a {@code multi}). */
    private static Created made(OpResult.CreateResult result) {
        return result.getStat() == null ? Created.UNKNOWN
                : new Created(Outcome.MADE, ZKPaths.getNodeFromPath(result.getPath()), result.getStat());
    }

    /** Sends the placement's listing, if it wants one, on {@code handle} (after what was sent on it before). */
    private void listBehind(ZooKeeper handle, Placement placement) {
        if (placement.listing() != null) {
            list(handle, placement.directory()).thenAccept(placement::listed);
        }
    }

    /** The children of {@code directory} (none if it does not exist), or null if that is not known. */
    CompletableFuture<List<String>> list(String directory) {
        return list(handle(curator), directory);
    }

    private CompletableFuture<List<String>> list(ZooKeeper handle, String directory) {
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
        CompletableFuture<MultiAnswer> answered = multi(handle, each);
        List<CompletableFuture<Boolean>> answers = new ArrayList<>(paths.size());
        for (String path : paths) {
            answers.add(answered.thenCompose(answer -> answer.applied() ? CompletableFuture.completedFuture(Boolean.TRUE)
                    : answer.refused() ? deleteAlone(path) : CompletableFuture.completedFuture(null)));
        }
        return answers;
    }

    /** Sends {@code ops} as one {@code multi} on {@code handle}. */
    private static CompletableFuture<MultiAnswer> multi(ZooKeeper handle, List<Op> ops) {
        CompletableFuture<MultiAnswer> answered = new CompletableFuture<>();
        try {
            handle.multi(ops, (rc, ignoredPath, context, results) -> answered.complete(MultiAnswer.of(rc, results)), null);
        } catch (RuntimeException closing) {
            // The handle refused the request (closing): it never reached a server.
            answered.complete(MultiAnswer.REFUSED);
        }
        return answered;
    }

    private String fixed(String path) {
        return ZKPaths.fixForNamespace(curator.getNamespace(), path);
    }
}
