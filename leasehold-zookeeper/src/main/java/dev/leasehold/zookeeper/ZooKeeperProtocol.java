package dev.leasehold.zookeeper;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockKind;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.QueueEntry;
import dev.leasehold.spi.QueueKindProtocol;
import dev.leasehold.spi.QueueRule;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.Wake;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import dev.leasehold.zookeeper.BackgroundCalls.Reply;
import dev.leasehold.zookeeper.BackgroundCalls.Sender;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.zookeeper.BackgroundCalls.code;
import static dev.leasehold.zookeeper.BackgroundCalls.found;
import static dev.leasehold.zookeeper.BackgroundCalls.requireOk;

/**
 * One lock kind on a ZooKeeper ensemble, core's {@link QueueRule} deciding over the name's nodes:
 * the same few calls serve mutex, fair lock, read and write locks and semaphore permits, as
 * Curator's {@code LockInternals} serves its recipes.
 *
 * <p><b>Acquire.</b> An acquisition's first attempt creates its ephemeral sequential node in the
 * name's directory, on the session's own handle ({@code DirectCalls}): if the reply is lost, a synced
 * listing finds the node by the holder id in its name instead of creating a second one, and only a
 * node of the current session becomes the lease (over a framework given to
 * {@code ZooKeeperLocks.using}, Curator's protected mode does the same by its protection id). Its
 * listing of the directory, to which the rule is applied, is sent right behind the create: one
 * round trip when the lock is free. Creates of a client's threads that meet on the wire share one
 * {@code multi} ({@code DirectCalls}), and with it one zxid: never two of one name, whose tokens
 * stay strictly increasing. Later attempts reuse the node: a {@code sync} (so the
 * listing is the leader's view, not that of a server cut off from it), one listing, and, when
 * still blocked, one watch on the node the rule names (or on the directory), kept across re-checks
 * that find the same blocker. The watch is the attempt's own wake ({@link Attempt.Held#wake()});
 * the engine's re-check timer covers a lost watch. The token is the node's czxid.
 *
 * <p><b>Lease.</b> Liveness is the session as the leader sees it: a renewal is a {@code sync} then
 * an {@code exists} that finds the node still this session's, and {@link #grantedFor} caps the
 * local deadline at what the quorum still grants the session ({@link SessionGrant}); the session's
 * own trouble is the lease's loss signal ({@link SessionWatch}). The ttl is kept by
 * {@link NodeExpiry}: a renewal moves the node's expiry to its send time plus the ttl.
 * <b>Release</b> deletes the node (one round trip; releases of a client's threads that meet on the
 * wire share one {@code multi}, see {@code DirectCalls}); {@link #abandon} deletes it too, finding
 * it by the holder id in its name if the create's reply never came. A release within hold-at-least
 * leaves a {@link KeptMarker} in the node's place (one {@code multi}), which every attempt honours
 * as a holder at the head of the queue until it ends by the server's clock.
 */
final class ZooKeeperProtocol extends QueueKindProtocol {

    /**
     * An acquisition's node: its path, creation zxid and creation time (the server's ms), when
     * (this client's {@link System#nanoTime()}) the create was answered, and its session's id.
     */
    private record OwnNode(String path, long czxid, long ctime, long answeredAtNanos, long session) {

        /** A lower bound of the server's time now: the ctime plus what this client saw pass since. */
        long serverNowMillis() {
            return ctime + (System.nanoTime() - answeredAtNanos) / 1_000_000;
        }
    }

    /** A marker of a kept lease ({@link KeptMarker}) that has not ended, and its end (server ms). */
    private record LiveMarker(KeptMarker marker, long endMillis) {
    }

    /** A watch set on {@code path}; {@code wake} completes when it fires. */
    private record PendingWatch(String path, CompletableFuture<Wake> wake) {
    }

    private static final Comparator<NodeName> BY_SEQUENCE = Comparator.comparingLong(NodeName::sequence);

    private final CuratorFramework curator;
    /** Creates, listings and deletes on the session's handle itself; null: all through Curator. */
    private final DirectCalls direct;
    private final String ensemble;
    /** What this kind's nodes ask for, as the rule sees it (and their names say). */
    private final QueueEntry entry;
    private final SessionWatch session;
    private final NodeExpiry expiry;
    private final SessionGrant grants;
    /** The defect kept for the fault suite's proof ({@link ZooKeeperLocks.Builder#unsafeLocalRenewals}). */
    private final boolean localRenewals;
    /** Holder id to the watch its waiting acquisition has in place, so a re-check does not add another. */
    private final Map<String, PendingWatch> watches = new ConcurrentHashMap<>();
    /** The digest user's ACLs a lock directory must carry, or null without digest authentication. */
    private final DigestAcls acls;
    /** Holder id to its node, for every acquisition of this kind of this client that has one. */
    private final Map<String, OwnNode> nodes = new ConcurrentHashMap<>();
    /** Acquisitions given up (holder id to when), so a late answer neither keeps nor makes a node. */
    private final AbandonedHolders abandoned = new AbandonedHolders();
    /** Deletions of given-up acquisitions' nodes the session still owes, shared by every kind. */
    private final OwedCleanups owed;

    /**
     * @param kind   the lock kind this protocol serves
     * @param acls   the digest user's ACLs, or null without digest authentication
     * @param direct the hot path's calls on the handle itself, or null to send every call through Curator
     * @param owed   the client's owed clean-ups, retried on each reconnection
     */
    ZooKeeperProtocol(CuratorFramework curator, String ensemble, LockKind kind, SessionWatch session,
                      NodeExpiry expiry, SessionGrant grants, boolean localRenewals, DigestAcls acls,
                      DirectCalls direct, OwedCleanups owed) {
        super(ensemble, kind);
        this.owed = owed;
        this.direct = direct;
        this.grants = grants;
        this.localRenewals = localRenewals;
        this.acls = acls;
        this.curator = curator;
        this.ensemble = ensemble;
        this.entry = QueueEntry.of(kind);
        this.session = session;
        this.expiry = expiry;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        OwnNode own = nodes.get(request.holder());
        String directory = LockPaths.directory(request.name());
        String operation = "the acquire of '" + request.name() + "'";
        if (own == null) {
            // The create goes through the leader. The listing is sent right behind it, not after
            // its answer: one round trip instead of two. It is used only if it holds the node this
            // create made, which proves the server listed after applying the create; otherwise
            // (the directory was missing, or the create was retried) a listing follows the answer.
            CompletableFuture<List<String>> listed = new CompletableFuture<>();
            CompletableFuture<OwnNode> created = create(request, listed);
            return created.thenCompose(node -> listed.handle((children, error) ->
                            error == null && children != null && children.contains(nameOf(node)) ? children : null)
                    .thenCompose(children -> children != null ? decide(request, node, true, children, null)
                            : evaluate(request, node, true)));
        }
        if (localRenewals) {
            return evaluate(request, own, true);
        }
        // A listing alone is the answering server's view, which a server cut off from its leader
        // keeps serving: the sync brings it up to date with the leader first (or fails).
        return SyncedListing.send(curator, directory).thenCompose(children -> children != null
                ? decide(request, own, true, children, null)
                : sync(directory, operation).thenCompose(ignored -> evaluate(request, own, true)));
    }

    /** The last segment of {@code own}'s path: its name among the directory's children. */
    private static String nameOf(OwnNode own) {
        return own.path().substring(own.path().lastIndexOf('/') + 1);
    }

    /**
     * ZooKeeper's {@code sync}: completes once the server this client talks to has caught up with
     * the leader as of the moment the leader processed it, so that this session's next read sees
     * every change committed before; fails if the leader cannot be reached (a server cut off from
     * its quorum never completes it, and drops the connection when it gives up on its leader).
     */
    private CompletableFuture<Void> sync(String path, String operation) {
        return done(operation, callback -> curator.sync().inBackground(callback).forPath(path));
    }

    /**
     * Creates the acquisition's node: on the session's handle directly when it can ({@link DirectCalls}),
     * else through Curator. A direct create whose answer was lost may have made the node, which is
     * then found by the holder id in its name ({@link #findOrCreate}) rather than made twice.
     */
    private CompletableFuture<OwnNode> create(AcquireRequest request) {
        return create(request, null);
    }

    /**
     * {@link #create(AcquireRequest)}, and if {@code listing} is given, the listing of the
     * directory sent right behind the create, which completes it (null if not known).
     */
    private CompletableFuture<OwnNode> create(AcquireRequest request, CompletableFuture<List<String>> listing) {
        CompletableFuture<OwnNode> made;
        String directory = LockPaths.directory(request.name());
        if (direct == null) {
            made = createThroughCurator(request);
            if (listing != null) {
                list(directory, "the acquire of '" + request.name() + "'", null).whenComplete((children, error) ->
                        listing.complete(error == null ? children : null));
            }
        } else {
            made = direct.create(directory, NodeName.prefix(entry, request.holder()), listing).thenCompose(created ->
                    switch (created.outcome()) {
                        case MADE -> CompletableFuture.completedFuture(
                                made(request, directory + "/" + created.name(), created.stat()));
                        case NOT_MADE -> createThroughCurator(request);
                        case UNKNOWN -> findOrCreate(request);
                    });
        }
        return acls == null ? made : made.thenCompose(own -> inOwnDirectory(request, own));
    }

    /**
     * Curator's create, in protected mode (if the answer is lost, its retry finds the node by the
     * protection id), creating the lock's directory first if it is missing.
     */
    private CompletableFuture<OwnNode> createThroughCurator(AcquireRequest request) {
        String path = LockPaths.directory(request.name()) + "/"
                + NodeName.prefix(entry, request.holder());
        String operation = "the acquire of '" + request.name() + "'";
        CompletableFuture<OwnNode> created = call(operation, callback -> curator.create()
                .creatingParentContainersIfNeeded().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).inBackground(callback).forPath(path), event -> {
                    requireOk(event, ensemble, operation);
                    return made(request, event.getName(), event.getStat());
                });
        return created;
    }

    /**
     * Records the acquisition's node at {@code path} (without the namespace).
     *
     * @throws LeaseholdException if the acquisition was given up while the create was on its way:
     *                            the node is deleted again
     */
    private OwnNode made(AcquireRequest request, String path, Stat stat) {
        OwnNode own = new OwnNode(path, stat.getCzxid(), stat.getCtime(), System.nanoTime(), stat.getEphemeralOwner());
        nodes.put(request.holder(), own);
        if (abandoned.contains(request.holder())) {
            deleteQuietly(request.holder());
            throw new LeaseholdException("the acquire of '" + request.name() + "' was abandoned");
        }
        return own;
    }

    /**
     * After a create whose answer was lost: the node it may have made, found by the holder id in
     * its name (unique to the acquisition) in a listing that follows a {@code sync}, so the
     * listing holds every node the leader made before; if there is none, a new one. A node found
     * of another session (the create went out on an earlier session, which the servers have not
     * expired yet) is deleted and replaced: it would vanish with that session while its lease was
     * held (Curator's protected mode does the same).
     */
    private CompletableFuture<OwnNode> findOrCreate(AcquireRequest request) {
        String directory = LockPaths.directory(request.name());
        String operation = "the acquire of '" + request.name() + "'";
        return sync(directory, operation).thenCompose(ignored -> list(directory, operation, null)).thenCompose(children -> {
            for (String child : children) {
                if (NodeName.parse(child).filter(node -> node.holder().equals(request.holder())).isPresent()) {
                    String path = directory + "/" + child;
                    return stat(path, operation).thenCompose(stat -> stat == null ? createThroughCurator(request)
                            : stat.getEphemeralOwner() != sessionId()
                            ? delete(path, operation).thenCompose(ignored -> createThroughCurator(request))
                            : CompletableFuture.completedFuture(made(request, path, stat)));
                }
            }
            return createThroughCurator(request);
        });
    }

    /** The stat of {@code path}, or null if there is no such node. */
    private CompletableFuture<Stat> stat(String path, String operation) {
        return call(operation, callback -> curator.checkExists().inBackground(callback).forPath(path),
                event -> found(event, ensemble, operation) ? event.getStat() : null);
    }

    /**
     * {@code own} once its directory is known to be this user's alone ({@link DigestAcls}); else its
     * node is deleted, whatever failed, so that a later attempt never reuses an unchecked node.
     */
    private CompletableFuture<OwnNode> inOwnDirectory(AcquireRequest request, OwnNode own) {
        String directory = LockPaths.directory(request.name());
        String operation = "the acquire of '" + request.name() + "'";
        CompletableFuture<OwnNode> checked = call(operation,
                callback -> curator.getACL().inBackground(callback).forPath(directory), event -> {
            requireOk(event, ensemble, operation);
            if (!acls.isOwn(event.getACLList())) {
                throw new LockUnavailableException(operation + " refused at ZooKeeper " + ensemble + ": the lock's "
                        + "directory " + directory + " grants permissions to another identity (another session created "
                        + "it first), which could delete the holder's node; have an administrator delete that directory",
                        new NodeFailure(ensemble, NodeFailure.Kind.AUTHENTICATION, null));
            }
            return own;
        });
        return checked.exceptionallyCompose(error -> {
            nodes.remove(request.holder(), own);
            return delete(own.path(), operation).handle((ignored, deleteError) -> {
                throw error instanceof CompletionException wrapped ? wrapped : new CompletionException(error);
            });
        });
    }

    /**
     * Lists the queue and applies the rule. If the own node is gone (the session that made it
     * expired) a new one is made once; if the node to watch is already gone, the rule runs again.
     */
    private CompletableFuture<Attempt> evaluate(AcquireRequest request, OwnNode own, boolean mayRecreate) {
        String directory = LockPaths.directory(request.name());
        return list(directory, "the acquire of '" + request.name() + "'", null)
                .thenCompose(queue -> decide(request, own, mayRecreate, queue, null));
    }

    /** The children of {@code directory}; with {@code changed}, also a children watch that completes it. */
    private CompletableFuture<List<String>> list(String directory, String operation, CompletableFuture<Wake> changed) {
        if (changed == null && direct != null) {
            return direct.list(directory).thenCompose(children -> children != null
                    ? CompletableFuture.completedFuture(children) : listThroughCurator(directory, operation, null));
        }
        return listThroughCurator(directory, operation, changed);
    }

    private CompletableFuture<List<String>> listThroughCurator(String directory, String operation,
                                                               CompletableFuture<Wake> changed) {
        return call(operation, callback -> changed != null
                ? curator.getChildren().usingWatcher((CuratorWatcher)
                        event -> changed.complete(Wake.RETRY)).inBackground(callback).forPath(directory)
                : curator.getChildren().inBackground(callback).forPath(directory), event ->
                    found(event, ensemble, operation) && event.getChildren() != null ? event.getChildren()
                            : List.<String>of());
    }

    /** The lease nodes among {@code children}, in sequence order (markers and strangers left out). */
    private static List<NodeName> queueOf(List<String> children) {
        // A loop, not a stream: this runs on ZooKeeper's event thread for every attempt.
        List<NodeName> queue = new ArrayList<>(children.size());
        for (String child : children) {
            NodeName.parse(child).ifPresent(queue::add);
        }
        queue.sort(BY_SEQUENCE);
        return queue;
    }

    /** Whether any of {@code children} is a {@link KeptMarker} (most listings have none). */
    private static boolean hasMarker(List<String> children) {
        for (String child : children) {
            if (!child.isEmpty() && child.charAt(0) == KeptMarker.PREFIX) {
                return true;
            }
        }
        return false;
    }

    /**
     * Applies {@link QueueRule} to {@code queue}. A blocked acquisition watches the one node the rule
     * names, or the whole directory; a watch it already has in place for the same node (or the
     * directory) is reused, so re-checks never pile up watchers.
     *
     * A live {@link KeptMarker} stands at the head of the queue, ahead of every node, until it ends:
     * an acquisition it blocks tries again at its end (or when the directory changes).
     *
     * @param childrenChanged the wake of the children watch that the listing of {@code children} set, or null
     */
    private CompletableFuture<Attempt> decide(AcquireRequest request, OwnNode own, boolean mayRecreate,
                                              List<String> children, CompletableFuture<Wake> childrenChanged) {
        if (!hasMarker(children)) {
            return decide(request, own, mayRecreate, queueOf(children), List.of(), childrenChanged);
        }
        String directory = LockPaths.directory(request.name());
        String operation = "the acquire of '" + request.name() + "'";
        return liveMarkers(directory, children, own, operation).thenCompose(kept ->
                decide(request, own, mayRecreate, queueOf(children), kept, childrenChanged));
    }

    private CompletableFuture<Attempt> decide(AcquireRequest request, OwnNode own, boolean mayRecreate,
                                              List<NodeName> queue, List<LiveMarker> kept,
                                              CompletableFuture<Wake> childrenChanged) {
        String operation = "the acquire of '" + request.name() + "'";
        int mine = indexOf(queue, nameOf(own));
        if (mine < 0) {
            nodes.remove(request.holder(), own);
            if (abandoned.contains(request.holder())) {
                return CompletableFuture.failedFuture(new LeaseholdException("the acquire of '"
                        + request.name() + "' was abandoned"));
            }
            if (!mayRecreate) {
                return CompletableFuture.failedFuture(new LeaseholdException("the node of this acquisition of '"
                        + request.name() + "' vanished twice; the ZooKeeper session keeps expiring"));
            }
            return create(request).thenCompose(created -> evaluate(request, created, false));
        }
        List<NodeName> withKept = queue;
        if (!kept.isEmpty()) {
            withKept = new ArrayList<>(kept.size() + queue.size());
            for (LiveMarker live : kept) {
                withKept.add(live.marker().stand());
            }
            withKept.addAll(queue);
        }
        List<QueueEntry> entries = new ArrayList<>(withKept.size());
        for (NodeName node : withKept) {
            entries.add(node.entry());
        }
        QueueRule.Decision decision;
        try {
            decision = QueueRule.decide(request.name(), entries, mine + kept.size());
        } catch (LeaseholdException refused) {
            // Nothing may stay taken: the node goes before the caller hears of the refusal.
            nodes.remove(request.holder(), own);
            return delete(own.path(), operation).handle((ignored, error) -> {
                throw new CompletionException(refused);
            });
        }
        if (decision.granted()) {
            if (abandoned.contains(request.holder())) {
                // Granted after the acquisition was given up: nobody will hold this lease.
                deleteQuietly(request.holder());
                return CompletableFuture.failedFuture(new LeaseholdException("the acquire of '"
                        + request.name() + "' was abandoned"));
            }
            return CompletableFuture.completedFuture(grant(request, own));
        }
        String directory = LockPaths.directory(request.name());
        if (!kept.isEmpty() && (decision.watchesWholeQueue() || decision.watch() < kept.size())) {
            // Blocked by a marker (or, for a permit, perhaps by one): try again when the first ends.
            long first = kept.stream().mapToLong(LiveMarker::endMillis).min().orElseThrow();
            long waitMillis = Math.max(1, first - own.serverNowMillis() + 1);
            CompletableFuture<Wake> ended = new CompletableFuture<>();
            CompletableFuture.delayedExecutor(waitMillis, TimeUnit.MILLISECONDS).execute(() -> ended.complete(Wake.RETRY));
            if (childrenChanged != null) {
                childrenChanged.thenAccept(ended::complete);
            }
            return CompletableFuture.completedFuture(new Attempt.Held(Duration.ofMillis(waitMillis), ended));
        }
        String watched = decision.watchesWholeQueue() ? directory
                : directory + "/" + withKept.get(decision.watch()).node();
        if (childrenChanged != null) {
            watches.put(request.holder(), new PendingWatch(directory, childrenChanged));
            return CompletableFuture.completedFuture(new Attempt.Held(null, childrenChanged.copy()));
        }
        PendingWatch pending = watches.get(request.holder());
        if (pending != null && pending.path().equals(watched) && !pending.wake().isDone()) {
            // A re-check that finds the same blocker: the watch set before still stands. Each
            // attempt gets its own copy, which the engine may cancel once it is done waiting.
            return CompletableFuture.completedFuture(new Attempt.Held(null, pending.wake().copy()));
        }
        if (decision.watchesWholeQueue()) {
            // Listed again with a watch: a change between the two listings is then not missed.
            CompletableFuture<Wake> changed = new CompletableFuture<>();
            return list(directory, operation, changed)
                    .thenCompose(again -> decide(request, own, mayRecreate, again, changed));
        }
        return watch(watched, operation).thenCompose(wake -> {
            if (wake == null) {
                return evaluate(request, own, mayRecreate);
            }
            watches.put(request.holder(), new PendingWatch(watched, wake));
            return CompletableFuture.completedFuture(new Attempt.Held(null, wake.copy()));
        });
    }

    /**
     * The markers among {@code children} that have not ended by the server's time as {@code own}
     * bounds it (one {@code getData} per marker, in parallel; none without markers), oldest first.
     * An ended marker is deleted in the background: the first acquirer past its end frees it.
     */
    private CompletableFuture<List<LiveMarker>> liveMarkers(String directory, List<String> children, OwnNode own,
                                                             String operation) {
        List<KeptMarker> markers = children.stream().map(KeptMarker::parse).flatMap(Optional::stream)
                .sorted(Comparator.comparingLong(marker -> marker.stand().sequence())).toList();
        if (markers.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<CompletableFuture<LiveMarker>> read = new ArrayList<>();
        for (KeptMarker marker : markers) {
            String path = directory + "/" + marker.node();
            read.add(call(operation, callback -> curator.getData().inBackground(callback).forPath(path), event -> {
                if (!found(event, ensemble, operation)) {
                    return null;
                }
                long end = KeptMarker.endMillis(event.getStat().getCtime(), event.getData());
                if (end <= own.serverNowMillis()) {
                    deleteMarkerQuietly(path, event.getStat().getVersion());
                    return null;
                }
                return new LiveMarker(marker, end);
            }));
        }
        return CompletableFuture.allOf(read.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> read.stream().map(CompletableFuture::join).filter(Objects::nonNull).toList());
    }

    private static int indexOf(List<NodeName> queue, String node) {
        for (int i = 0; i < queue.size(); i++) {
            if (queue.get(i).node().equals(node)) {
                return i;
            }
        }
        return -1;
    }

    private Attempt grant(AcquireRequest request, OwnNode own) {
        String holder = request.holder();
        watches.remove(holder);
        // The grant went through the leader (the create, or the sync before the listing).
        grants.confirmed(request.stamp());
        CompletableFuture<String> lossSignal = session.register(holder);
        // A lease lost with the session still connected later (suspended too long) leaves its node: delete it.
        lossSignal.thenRun(() -> deleteQuietly(holder));
        expiry.expireAt(holder, request.stamp() + request.ttl().toNanos(), () -> deleteQuietly(holder));
        return new Attempt.Acquired(own.czxid(), lossSignal);
    }

    /**
     * Watches {@code path}: completes with the wake (which fires when the node changes or the
     * connection does), or with null if the node is already gone.
     */
    private CompletableFuture<CompletableFuture<Wake>> watch(String path, String operation) {
        CompletableFuture<Wake> wake = new CompletableFuture<>();
        return call(operation, callback -> curator.checkExists()
                .usingWatcher((CuratorWatcher) event -> wake.complete(Wake.RETRY))
                .inBackground(callback).forPath(path),
                // The result code first: a lost connection also leaves the stat null, and is no release.
                event -> found(event, ensemble, operation) ? wake : null);
    }

    /**
     * A renewal that proves the quorum still knows the session: a {@code sync} (which the server
     * forwards to the leader, and which a server cut off from its quorum cannot complete), then an
     * {@code exists} on the holder's node, which must still be there and be this session's
     * ephemeral node. Refused at once while the connection is suspended. On success the node's
     * expiry moves to the send time plus {@code ttl}, and {@link #grantedFor} tells the engine how
     * long the session is granted ({@link SessionGrant}).
     */
    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        OwnNode own = nodes.get(holder);
        if (own == null || !expiry.pending(holder)) {
            return CompletableFuture.completedFuture(false);
        }
        String operation = "the renewal of '" + name + "'";
        if (session.suspended()) {
            return CompletableFuture.failedFuture(ZooKeeperErrors.of(ensemble, operation,
                    KeeperException.Code.CONNECTIONLOSS));
        }
        long sentAt = System.nanoTime();
        long sessionId = sessionId();
        CompletableFuture<Void> synced = localRenewals ? CompletableFuture.completedFuture(null)
                : sync(own.path(), operation);
        return synced.thenCompose(ignored -> {
            return call(operation, callback -> curator.checkExists().inBackground(callback).forPath(own.path()), event -> {
                if (code(event) == KeeperException.Code.NONODE || code(event) == KeeperException.Code.OK
                        && (event.getStat() == null || event.getStat().getEphemeralOwner() != sessionId)) {
                    return false;
                }
                if (code(event) != KeeperException.Code.OK) {
                    throw ZooKeeperErrors.of(ensemble, operation, code(event));
                }
                if (!localRenewals) {
                    grants.confirmed(sentAt);
                }
                expiry.expireAt(holder, sentAt + ttl.toNanos(), () -> deleteQuietly(holder));
                return expiry.pending(holder);
            });
        });
    }

    /** The session granted by the quorum, from the confirmation of the grant or renewal sent at {@code sentAtNanos}. */
    @Override
    public Duration grantedFor(String holder, long sentAtNanos) {
        return localRenewals ? null : grants.grantedFor(sentAtNanos);
    }

    private long sessionId() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception notConnected) {
            return 0;
        }
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        OwnNode own = forget(holder);
        if (own == null) {
            return CompletableFuture.completedFuture(ReleaseOutcome.single(false));
        }
        if (direct != null) {
            return direct.delete(own.path()).thenCompose(deleted -> {
                if (deleted == null) {
                    return deleteThroughCurator(name, holder, own, true);
                }
                ended(holder, own);
                return CompletableFuture.completedFuture(ReleaseOutcome.single(deleted));
            });
        }
        return deleteThroughCurator(name, holder, own, false);
    }

    /**
     * @param mayHaveDeleted whether a delete whose answer was lost went before: then a node gone
     *                       while its session is still this client's live one was deleted by it
     *                       (nothing else deletes a live session's lease node), a release, not a loss
     */
    private CompletableFuture<ReleaseOutcome> deleteThroughCurator(String name, String holder, OwnNode own,
                                                                   boolean mayHaveDeleted) {
        String operation = "the release of '" + name + "'";
        return call(operation, callback -> curator.delete().inBackground(callback).forPath(own.path()), event -> {
            boolean deleted = found(event, ensemble, operation) || mayHaveDeleted && own.session() == sessionId();
            ended(holder, own);
            return ReleaseOutcome.single(deleted);
        });
    }

    /**
     * Keeps the lease for {@code keepFor} past its release: in one {@code multi}, creates its
     * {@link KeptMarker} (persistent, so it outlives this session and process) and deletes the
     * holder's node, which fails as a whole if the node is gone (the lease was lost). The client
     * deletes the marker itself once {@code keepFor} has passed since the answer (by then the
     * server's clock has passed the marker's end too), if it still runs; else the next acquirer does.
     */
    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        OwnNode own = forget(holder);
        if (own == null) {
            return CompletableFuture.completedFuture(ReleaseOutcome.single(false));
        }
        long keepMillis = Math.max(1, (keepFor.toNanos() + 999_999) / 1_000_000);
        NodeName released = NodeName.parse(own.path().substring(own.path().lastIndexOf('/') + 1)).orElseThrow();
        String marker = LockPaths.directory(name) + "/" + KeptMarker.prefix(released.kind(), released.permits(), holder);
        String operation = "the release (held " + keepMillis + " ms more) of '" + name + "'";
        CompletableFuture<ReleaseOutcome> kept = call(operation, callback -> curator.transaction()
                .inBackground(callback).forOperations(
                curator.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                        .forPath(marker, KeptMarker.data(keepMillis)),
                curator.transactionOp().delete().forPath(own.path())), event -> {
                    boolean committed = found(event, ensemble, operation);
                    ended(holder, own);
                    if (!committed) {
                        return null;
                    }
                    String created = event.getOpResults().get(0).getResultPath();
                    if (created != null) {
                        CompletableFuture.delayedExecutor(keepMillis, TimeUnit.MILLISECONDS)
                                .execute(() -> deleteMarkerQuietly(created, -1));
                    }
                    return ReleaseOutcome.single(true);
                });
        return kept.thenCompose(outcome -> outcome != null ? CompletableFuture.completedFuture(outcome)
                : hasMarker(name, holder, operation).thenApply(ReleaseOutcome::single));
    }

    /**
     * Whether {@code holder}'s marker is in {@code name}'s directory: a retried {@code multi} whose
     * first try committed (its answer lost with the connection) finds the node gone, and was kept
     * all the same. One listing, only after a {@code NONODE}.
     */
    private CompletableFuture<Boolean> hasMarker(String name, String holder, String operation) {
        return call(operation, callback -> curator.getChildren().inBackground(callback).forPath(LockPaths.directory(name)),
                event -> found(event, ensemble, operation) && event.getChildren().stream().map(KeptMarker::parse)
                        .flatMap(Optional::stream).anyMatch(marker -> marker.stand().holder().equals(holder)));
    }

    /**
     * Deletes the holder's node, found by the holder id in its name if its create was never
     * answered; owed to the session ({@link OwedCleanups}), so sent again when the connection comes
     * back, until it succeeds.
     */
    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        abandoned.add(holder);
        forget(holder);
        expiry.cancel(holder);
        return owed.run(holder, () -> deleteNodesOf(name, holder));
    }

    /** Deletes every node of {@code holder} in {@code name}'s directory, found by one listing. */
    private CompletableFuture<Void> deleteNodesOf(String name, String holder) {
        String directory = LockPaths.directory(name);
        String operation = "the clean-up of an abandoned acquire of '" + name + "'";
        CompletableFuture<List<String>> listed = call(operation,
                callback -> curator.getChildren().inBackground(callback).forPath(directory), event -> {
            if (!found(event, ensemble, operation)) {
                return List.of();
            }
            return event.getChildren().stream().filter(child -> NodeName.parse(child)
                    .filter(node -> node.holder().equals(holder)).isPresent()).toList();
        });
        return listed.thenCompose(own -> CompletableFuture.allOf(own.stream()
                .map(child -> delete(directory + "/" + child, operation)).toArray(CompletableFuture[]::new)))
                .thenRun(() -> nodes.remove(holder));
    }

    /**
     * The acquisition of {@code holder} ends here (a release, or an abandonment): drops its watch
     * and its loss signal; returns its node, or null if it has none. Its expiry stays until the
     * node is known gone ({@link #ended}): a release that fails and is not tried again leaves a
     * node of a live session, which the expiry deletes once the lease's ttl has passed.
     */
    private OwnNode forget(String holder) {
        watches.remove(holder);
        session.forget(holder);
        return nodes.get(holder);
    }

    /** The release of {@code own} was answered: the node is gone (or kept under its marker), its expiry with it. */
    private void ended(String holder, OwnNode own) {
        nodes.remove(holder, own);
        expiry.cancel(holder);
    }

    private CompletableFuture<Void> delete(String path, String operation) {
        return done(operation, callback -> curator.delete().inBackground(callback).forPath(path));
    }

    /** A call whose node may be gone already (a delete, a sync): completes when it is done either way. */
    private CompletableFuture<Void> done(String operation, Sender sender) {
        return call(operation, sender, event -> {
            found(event, ensemble, operation);
            return null;
        });
    }

    /** Deletes the holder's node in the background, retried by Curator until done or the session ends. */
    private void deleteQuietly(String holder) {
        OwnNode own = nodes.remove(holder);
        if (own != null) {
            try {
                curator.delete().guaranteed().inBackground().forPath(own.path());
            } catch (Exception closed) {
                // The framework is closing: the session's end deletes the ephemeral node.
            }
        }
    }

    /** Deletes {@code path} (a marker) in the background if still at {@code version} (-1: any); a lost race is fine. */
    private void deleteMarkerQuietly(String path, int version) {
        try {
            curator.delete().withVersion(version).inBackground().forPath(path);
        } catch (Exception closed) {
            // The framework is closing: the next acquirer deletes the ended marker.
        }
    }

    /** Waiting goes through each attempt's own watch ({@link Attempt.Held#wake()}), not a shared channel. */
    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return ReleaseSignal.none();
    }

    private <T> CompletableFuture<T> call(String operation, Sender sender, Reply<T> reply) {
        return BackgroundCalls.call(ensemble, operation, sender, reply);
    }

    @Override
    public String toString() {
        return "ZooKeeperProtocol[" + lockKind() + ", " + ensemble + "]";
    }
}
