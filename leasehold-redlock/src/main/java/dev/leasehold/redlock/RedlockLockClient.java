package dev.leasehold.redlock;

import dev.leasehold.spi.Args;
import dev.leasehold.spi.LeaderRecords;
import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.redis.internal.LettuceConnections;
import dev.leasehold.redis.internal.LockKeys;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

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
 */
public final class RedlockLockClient implements LockClient, LeaderRecords.Source {

    private static final Logger LOG = LoggerFactory.getLogger(RedlockLockClient.class);

    private final List<RedlockNode> nodes;
    private final RedisClient client;
    private final ClientResources resources;
    private final RedlockProtocol protocol;
    private final LeaseEngine engine;
    private final AtomicBoolean closed = new AtomicBoolean();

    private RedlockLockClient(List<RedlockNode> nodes, RedisClient client, ClientResources resources,
                              RedlockSettings settings) {
        this.nodes = nodes;
        this.client = client;
        this.resources = resources;
        this.protocol = new RedlockProtocol(nodes, settings);
        this.engine = new LeaseEngine(settings.engine(), protocol.describe());
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
        RedlockLockClient locks = new RedlockLockClient(nodes, client, resources, settings);
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

    @Override
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        LockKeys.of(Args.lockName(name));
        return engine.lock(name, options, protocol);
    }

    /** {@code redlock[redis://host:port, ...]}: every node, without credentials. */
    @Override
    public String describe() {
        return protocol.describe();
    }

    /** How many nodes this client spreads each lock over. */
    public int nodeCount() {
        return nodes.size();
    }

    /** How many nodes must agree: N/2+1. */
    public int quorum() {
        return protocol.quorum();
    }

    /** Leases of this client that are held right now (not released, not lost). */
    public int heldLeases() {
        return engine.heldLeases();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        engine.close();
        nodes.forEach(RedlockNode::close);
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }

    @Override
    public String toString() {
        return "RedlockLockClient" + describe().substring("redlock".length());
    }

    /**
     * No leader records on Redlock: {@link #leadership elections} work, each term a Redlock lease,
     * but {@code currentLeader()} throws an {@link UnsupportedOperationException} saying why (a
     * record on a majority of independent masters cannot be read back in order without a second
     * quorum protocol).
     */
    @Override
    public LeaderRecords leaderRecords() {
        return new RedlockLeaderRecords();
    }
}
