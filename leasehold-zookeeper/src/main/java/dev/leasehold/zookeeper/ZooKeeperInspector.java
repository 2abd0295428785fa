package dev.leasehold.zookeeper;

import dev.leasehold.BrokenLock;
import dev.leasehold.LockInfo;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.Glob;
import dev.leasehold.spi.Inspector;
import dev.leasehold.spi.QueueEntry;
import dev.leasehold.spi.QueueRule;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import dev.leasehold.zookeeper.BackgroundCalls.Reply;
import dev.leasehold.zookeeper.BackgroundCalls.Sender;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static dev.leasehold.zookeeper.BackgroundCalls.found;

/**
 * What a ZooKeeper client can tell about locks it did not take, read from the lock directories
 * (see {@link LockPaths}); every call is bounded by the operation timeout.
 *
 * <p><b>inspect</b> lists a name's directory (after a {@code sync}, so it is the leader's view) and
 * applies core's {@link QueueRule}: the holders are the granted head of the queue, a lease kept by
 * {@link dev.leasehold.LockOptions#holdAtLeast} first (its {@link KeptMarker}); the waiters are the
 * rest. Nodes do not tell a mutex, a fair lock and a write lock apart (they exclude each other alike),
 * so an exclusive holder's kind reads {@link dev.leasehold.LockKind#MUTEX}. No holder has a ttl of its
 * own on the server (a node lives as long as its session), so {@code remaining} is empty.
 *
 * <p><b>The last token.</b> Tokens are the czxids of the nodes, and grants follow the queue's order,
 * so while the name is held the newest holder's czxid is exactly the last token issued for it (right
 * after an acquire: that acquire's token). When no node holds, it is the directory's {@code pzxid}, the
 * zxid of the last change to its nodes: every token issued for the name so far is at most it, and
 * every later one exceeds it, so it serves as the fence though it need not be a token itself. It is
 * empty once the directory is gone (ZooKeeper deletes an empty container node after a while): then
 * ZooKeeper no longer knows anything of the name, and the next token still exceeds every earlier one.
 */
final class ZooKeeperInspector implements Inspector {

    /** How many times a break reads the queue again when a node went before its {@code multi}. */
    private static final int BREAK_ATTEMPTS = 5;

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperInspector.class);

    /** A directory's children and its stat, as one listing read them. */
    private record Listing(List<String> children, Stat stat) {
    }

    /** A live marker's stand-in and the lease nodes, in queue order, with how many hold. */
    private record Queue(List<NodeName> markers, List<NodeName> nodes, int granted, int foreign) {

        List<NodeName> all() {
            List<NodeName> all = new ArrayList<>(markers);
            all.addAll(nodes);
            return all;
        }
    }

    private final CuratorFramework curator;
    private final String ensemble;
    private final Duration operationTimeout;

    ZooKeeperInspector(CuratorFramework curator, String ensemble, Duration operationTimeout) {
        this.curator = curator;
        this.ensemble = ensemble;
        this.operationTimeout = operationTimeout;
    }

    /**
     * The queue of lock {@code name} as the ensemble has it now: every acquisition's node in order,
     * with its kind, its holder id (redacted) and whether it holds. One round trip.
     */
    LockQueue queue(String name) {
        Optional<Listing> listing = listing(LockPaths.directory(name), "the inspect of '" + name + "'");
        return LockQueue.of(name, listing.map(Listing::children).orElse(List.of()));
    }

    /**
     * The holders and waiters of {@code name}, and its last token (see above): a {@code sync} and a
     * listing, one {@code exists} per holder's node and one {@code getData} per kept lease. A kept
     * lease ends by the leader's clock; this reads its end by this machine's, so around that moment
     * it may show the lease a little early or late.
     *
     * @throws dev.leasehold.LockUnavailableException if the ensemble cannot be reached in time
     */
    @Override
    public LockInfo inspect(String name) {
        String directory = LockPaths.directory(name);
        String operation = "the inspect of '" + name + "'";
        sync(directory, operation);
        Optional<Listing> listing = listing(directory, operation);
        if (listing.isEmpty()) {
            return LockInfo.free(name, OptionalLong.empty());
        }
        return snapshot(name, directory, listing.get(), operation);
    }

    private LockInfo snapshot(String name, String directory, Listing listing, String operation) {
        Queue queue = readQueue(name, directory, listing.children(), operation);
        Optional<String> foreign = queue.foreign() == 0 ? Optional.empty()
                : Optional.of(queue.foreign() + " node(s) in " + directory + " that Leasehold did not write");
        List<NodeName> holders = queue.all().subList(0, queue.granted());
        if (holders.isEmpty()) {
            return new LockInfo(name, Optional.empty(), List.of(), Optional.empty(),
                    OptionalLong.of(listing.stat().getPzxid()), queue.nodes().size(), foreign);
        }
        OptionalLong lastToken = holders.stream().skip(queue.markers().size())
                .mapToLong(node -> czxid(directory + "/" + node.node(), operation)).max();
        return new LockInfo(name, Optional.of(holders.get(0).entry().reportedKind()),
                holders.stream().map(node -> HolderIds.redact(node.holder())).toList(), Optional.empty(),
                lastToken.isPresent() ? lastToken : OptionalLong.of(listing.stat().getPzxid()),
                queue.all().size() - queue.granted(), foreign);
    }

    /**
     * The names matching {@code pattern} that are held now: one listing of {@link LockPaths#ROOT},
     * then {@link #inspect} of every matching name. Names are read back from their directories, so
     * the list is exact; it reads one lock after the other, not at one instant.
     */
    @Override
    public List<LockInfo> list(String pattern) {
        Glob glob = Glob.of(pattern);
        List<String> names = listing(LockPaths.ROOT, "the listing of locks").map(Listing::children).orElse(List.of())
                .stream().map(LockPaths::nameOf).flatMap(Optional::stream).filter(glob::matches).sorted().toList();
        List<LockInfo> held = new ArrayList<>();
        for (String name : names) {
            LockInfo info = inspect(name);
            if (info.isHeld()) {
                held.add(info);
            }
        }
        return held;
    }

    /**
     * Deletes every node in the name's queue, the holders', the kept leases' and the waiters', in one
     * {@code multi}, and reports the directory's {@code pzxid} as read just before as the fence. That
     * is an honest break because tokens are czxids: every node created before the listing has a czxid
     * of at most that pzxid and is gone now, at one zxid, and every node created after it has a
     * greater czxid, so every lease granted after the break has a greater token than any broken one.
     * Waiters lose their place: each finds its node gone at its next attempt and queues again with a
     * new node (so with a token past the fence), in the order those attempts reach the ensemble. If a
     * node goes between the listing and the {@code multi} (a release), the whole break is read and
     * tried again, up to {@value #BREAK_ATTEMPTS} times.
     *
     * <p>The broken holders are not told directly: a watchdog lease finds its node gone at its next
     * renewal (within a third of its ttl) and its {@link dev.leasehold.Lease#lost()} completes; a fixed
     * lease runs on until its local deadline. Until then it believes it holds the lock, so writes must
     * go through a {@link dev.leasehold.FenceGuard}. Who broke it and why is logged at WARN.
     *
     * @return the oldest broken holder and the fence; empty if nobody held the name
     * @throws IllegalArgumentException if the reason is blank or too long
     * @throws dev.leasehold.LockUnavailableException if the ensemble cannot be reached in time, or the
     *                                                queue kept changing under every attempt
     */
    @Override
    public Optional<BrokenLock> breakLock(String name, String reason) {
        Args.breakReason(reason);
        String directory = LockPaths.directory(name);
        String operation = "the break of '" + name + "'";
        for (int attempt = 1; ; attempt++) {
            sync(directory, operation);
            Optional<Listing> listing = listing(directory, operation);
            if (listing.isEmpty()) {
                return Optional.empty();
            }
            Queue queue = readQueue(name, directory, listing.get().children(), operation);
            if (queue.granted() == 0) {
                return Optional.empty();
            }
            List<String> paths = listing.get().children().stream()
                    .filter(child -> NodeName.parse(child).isPresent() || KeptMarker.parse(child).isPresent())
                    .map(child -> directory + "/" + child).toList();
            KeeperException.Code code = deleteAll(paths, operation);
            if (code == KeeperException.Code.OK) {
                String by = BrokenLock.operator();
                BrokenLock broken = new BrokenLock(name, HolderIds.redact(queue.all().get(0).holder()),
                        listing.get().stat().getPzxid(), by, reason);
                LOG.warn("Lock '{}' broken by {}: {} holder(s) and {} waiter(s) deleted, fence {}; reason: {}", name,
                        by, queue.granted(), queue.all().size() - queue.granted(), broken.fence(), reason);
                return Optional.of(broken);
            }
            if (code != KeeperException.Code.NONODE || attempt == BREAK_ATTEMPTS) {
                throw ZooKeeperErrors.of(ensemble, operation, code);
            }
        }
    }

    /** Deletes {@code paths} in one {@code multi}: all or none. */
    private KeeperException.Code deleteAll(List<String> paths, String operation) {
        List<CuratorOp> deletes = new ArrayList<>();
        for (String path : paths) {
            try {
                deletes.add(curator.transactionOp().delete().forPath(path));
            } catch (Exception unusable) {
                throw ZooKeeperErrors.of(ensemble, operation, unusable);
            }
        }
        return await(operation, callback -> curator.transaction().inBackground(callback).forOperations(deletes),
                BackgroundCalls::code);
    }

    /** The name's queue: live markers first (judged by this machine's clock), then the lease nodes. */
    private Queue readQueue(String name, String directory, List<String> children, String operation) {
        List<NodeName> nodes = children.stream().map(NodeName::parse).flatMap(Optional::stream)
                .sorted(Comparator.comparingLong(NodeName::sequence)).toList();
        List<KeptMarker> markers = children.stream().map(KeptMarker::parse).flatMap(Optional::stream)
                .sorted(Comparator.comparingLong(marker -> marker.stand().sequence())).toList();
        List<NodeName> live = new ArrayList<>();
        for (KeptMarker marker : markers) {
            if (endMillis(directory + "/" + marker.node(), operation) > System.currentTimeMillis()) {
                live.add(marker.stand());
            }
        }
        List<QueueEntry> entries = new ArrayList<>();
        live.forEach(marker -> entries.add(marker.entry()));
        nodes.forEach(node -> entries.add(node.entry()));
        return new Queue(live, nodes, QueueRule.grantedPrefix(name, entries),
                children.size() - nodes.size() - markers.size());
    }

    private void sync(String path, String operation) {
        await(operation, callback -> curator.sync().inBackground(callback).forPath(path),
                event -> found(event, ensemble, operation));
    }

    /** The children of {@code directory} and its stat; empty if it does not exist. */
    private Optional<Listing> listing(String directory, String operation) {
        return await(operation, callback -> curator.getChildren().inBackground(callback).forPath(directory),
                event -> found(event, ensemble, operation)
                        ? Optional.of(new Listing(event.getChildren(), event.getStat())) : Optional.empty());
    }

    /** The czxid of {@code path}: its lease's token; 0 if it went meanwhile. */
    private long czxid(String path, String operation) {
        // The result code first: a lost connection also leaves the stat null, and is no answer.
        return await(operation, callback -> curator.checkExists().inBackground(callback).forPath(path),
                event -> found(event, ensemble, operation) ? event.getStat().getCzxid() : 0L);
    }

    /** When the marker at {@code path} ends (the server's ms); 0 if it is gone or unreadable. */
    private long endMillis(String path, String operation) {
        return await(operation, callback -> curator.getData().inBackground(callback).forPath(path),
                event -> found(event, ensemble, operation)
                        ? KeptMarker.endMillis(event.getStat().getCtime(), event.getData()) : 0L);
    }

    /** One background call, waited for up to the operation timeout. */
    private <T> T await(String operation, Sender sender, Reply<T> reply) {
        return await(BackgroundCalls.call(ensemble, operation, sender, reply), operation);
    }

    private <T> T await(CompletableFuture<T> result, String operation) {
        try {
            return result.get(operationTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw ZooKeeperErrors.of(ensemble, operation, interrupted);
        } catch (ExecutionException failed) {
            throw ZooKeeperErrors.of(ensemble, operation, (Exception) failed.getCause());
        } catch (TimeoutException slow) {
            throw ZooKeeperErrors.of(ensemble, operation, KeeperException.Code.OPERATIONTIMEOUT);
        }
    }
}
