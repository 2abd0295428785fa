package dev.leasehold.redlock;

import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.redis.internal.LettuceConnections;
import dev.leasehold.redis.internal.RedisEndpoint;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link LockClient} over N independent Redis masters, by the Redlock algorithm with fencing
 * tokens. Create it with {@link RedlockLocks#connect(String...)} or {@link RedlockLocks#builder()}.
 * Thread-safe; share one per application.
 *
 * <p>It holds one command connection per node (Lettuce multiplexes every caller over it), one
 * pub/sub connection per node opened on the first wait, one set of Lettuce event loops and one
 * renewal thread. {@link #close()} ends them all.
 *
 * <p><b>What it guarantees.</b> A lease is granted only when N/2+1 nodes granted it and the time
 * spent getting them left a positive validity ({@code ttl - elapsed - drift}); it stays valid only
 * while a majority keeps extending it. So mutual exclusion survives the failure of any minority of
 * nodes, and tokens are strictly increasing across leases, <em>provided</em>:
 * <ul>
 *   <li>no node loses an acknowledged write: either every node runs {@code appendonly yes} with
 *   {@code appendfsync always}, or a node that crashed stays down for longer than the longest ttl
 *   in use before it rejoins (see the package documentation);</li>
 *   <li>clocks advance at nearly the same rate on clients and nodes (the drift allowance,
 *   {@code ttl * 0.01 + 2 ms}), and node clocks neither differ nor step back by more than the
 *   fence retention (a node counter that expired starts again from its node's clock);</li>
 *   <li>the nodes are independent masters: not replicas of each other, not one server listed twice.</li>
 * </ul>
 * A lease cannot stop a paused holder, so writes to shared resources should carry its token through
 * a {@link dev.leasehold.FenceGuard}.
 *
 * <p><b>What it offers.</b> {@link #lock(String, LockOptions)}, {@link #multiLock(String...)} (mutexes
 * taken in one sorted order) and leader election (each term a lease), all from core's
 * {@link EngineLockClient}. The other kinds throw an {@link UnsupportedOperationException} saying why:
 * <ul>
 *   <li><b>semaphore</b>: the quorum rule does not extend to a count. Each master can only count the
 *   permits it granted itself, and two majorities are sure to share one master, not enough masters to
 *   see every lease: with 3 masters and 2 permits, three leases granted by masters {1,2}, {2,3} and
 *   {1,3} leave every master counting 2, so 3 leases hold 2 permits;</li>
 *   <li><b>read-write lock</b>: exclusion would extend (a writer's majority and a reader's share a
 *   master, whose single-node rule keeps them apart), but it needs a reader count and a writer's
 *   registration on every master, and a reader count spread over masters that can each lose it on a
 *   restart admits a writer beside live readers unless every master meets the persistence
 *   assumption above; it is not written, rather than offered half-tested;</li>
 *   <li><b>fair lock</b>: arrival order across clients needs one queue every client reads alike,
 *   and N independent masters each keep their own.</li>
 * </ul>
 * Use {@code RedisLocks}, {@code ZooKeeperLocks} or {@code EtcdLocks} for those kinds. Locks of this
 * client cannot be inspected, listed or broken: a snapshot of N masters is not one lock's state.
 */
public final class RedlockLockClient extends EngineLockClient {

    private static final Logger LOG = LoggerFactory.getLogger(RedlockLockClient.class);

    private final RedlockBackend backend;

    private RedlockLockClient(RedlockBackend backend, RedlockSettings settings) {
        super(backend, settings.engine());
        this.backend = backend;
    }

    /**
     * Opens a connection to every node in parallel, each bounded by the operation timeout.
     *
     * @throws LockUnavailableException if fewer than a majority connect, or any node rejects the
     *                                  credentials; nothing is left open then. A minority of nodes
     *                                  that cannot be reached is logged and joins once it is back.
     */
    static RedlockLockClient open(List<RedisEndpoint> endpoints, RedlockSettings settings, Path trustedCertificate) {
        ClientResources resources = LettuceSetup.resources();
        RedisClient client = RedisClient.create(resources);
        RedlockScripts scripts = new RedlockScripts();
        List<RedlockNode> nodes = endpoints.stream().map(endpoint -> new RedlockNode(endpoint, client, scripts)).toList();
        RedlockLockClient locks = new RedlockLockClient(new RedlockBackend(nodes, client, resources, settings), settings);
        try {
            client.setOptions(LettuceConnections.clientOptions(settings.engine().operationTimeout(), trustedCertificate));
            locks.connectMajority(settings.engine().operationTimeout());
            return locks;
        } catch (RuntimeException e) {
            locks.close();
            throw e;
        }
    }

    private void connectMajority(Duration timeout) {
        List<RedlockNode> nodes = backend.nodes();
        List<CompletableFuture<NodeFailure>> connected = nodes.stream()
                .map(node -> node.connect(timeout).handle((ignored, error) -> error == null ? null : node.failureOf(error)))
                .toList();
        List<NodeFailure> failures = new ArrayList<>();
        for (CompletableFuture<NodeFailure> attempt : connected) {
            NodeFailure failure = attempt.join();
            if (failure != null) {
                failures.add(failure);
            }
        }
        int reached = nodes.size() - failures.size();
        boolean rejected = failures.stream().anyMatch(failure -> failure.kind() == NodeFailure.Kind.AUTHENTICATION);
        if (rejected || reached < quorum()) {
            throw new LockUnavailableException("Redlock could not start: " + reached + " of " + nodes.size()
                    + " nodes connected, " + quorum() + " needed"
                    + (rejected ? ", and a node rejected the credentials (check the user and password in its URI)" : "")
                    + "; " + failures.stream().map(NodeFailure::toString).toList(), failures);
        }
        failures.forEach(failure -> LOG.warn("Redlock node unreachable at start, it joins once it is back: {}", failure));
    }

    /** How many nodes this client spreads each lock over. */
    public int nodeCount() {
        return backend.nodes().size();
    }

    /** How many nodes must agree: N/2+1. */
    public int quorum() {
        return backend.quorum();
    }

    @Override
    public String toString() {
        return "RedlockLockClient" + describe().substring("redlock".length());
    }
}
