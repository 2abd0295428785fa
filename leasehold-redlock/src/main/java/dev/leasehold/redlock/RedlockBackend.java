package dev.leasehold.redlock;

import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.Backend;
import dev.leasehold.spi.LeaderRecords;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Redlock backend behind a {@link RedlockLockClient}: the one {@link RedlockProtocol} (the mutex,
 * which multi-locks and elections are made of), and the nodes' connections and Lettuce resources.
 * Every other kind is refused with the reason, which {@link RedlockLockClient} states in full.
 */
final class RedlockBackend implements Backend {

    static final String NO_FAIR_LOCK = "fair locks are not offered on Redlock: arrival order across clients needs"
            + " one queue that every client reads alike, and N independent masters each keep their own; use"
            + " ZooKeeperLocks or EtcdLocks for a fair lock, or lock(name) here";
    static final String NO_READ_WRITE_LOCK = "read-write locks are not offered on Redlock yet: any two majorities"
            + " share a master, so the single-node rule would keep a writer and readers apart, but the per-master"
            + " reader count and writer registration it needs are not written, and a master that loses its reader"
            + " count on restart admits a writer beside live readers; use lock(name) here, or RedisLocks,"
            + " ZooKeeperLocks or EtcdLocks for a read-write lock";
    static final String NO_SEMAPHORE = "semaphores are not offered on Redlock: each master can only count the"
            + " permits it granted, and majorities overlap in one master, not in enough to count (with 3 masters and"
            + " 2 permits, three leases granted by masters {1,2}, {2,3} and {1,3} leave each master counting 2),"
            + " so a quorum cannot bound the permits; use RedisLocks, ZooKeeperLocks or EtcdLocks for a semaphore";

    private final List<RedlockNode> nodes;
    private final RedisClient client;
    private final ClientResources resources;
    private final RedlockProtocol protocol;

    RedlockBackend(List<RedlockNode> nodes, RedisClient client, ClientResources resources, RedlockSettings settings) {
        this.nodes = nodes;
        this.client = client;
        this.resources = resources;
        this.protocol = new RedlockProtocol(nodes, settings);
    }

    /** {@code redlock[redis://host:port, ...]}: every node, without credentials. */
    @Override
    public String describe() {
        return protocol.describe();
    }

    /** The name itself, if it is one every node can store (the key layout of {@code leasehold-redis}). */
    @Override
    public String lockName(String name) {
        LockKeys.of(Args.lockName(name));
        return name;
    }

    /**
     * The mutex; the other kinds are refused with the reason.
     *
     * @throws UnsupportedOperationException for the fair lock, the read-write lock and the semaphore
     */
    @Override
    public RedlockProtocol protocol(LockKind kind, LockOptions options) {
        if (kind.equals(LockKind.MUTEX)) {
            return protocol;
        }
        if (kind.equals(LockKind.FAIR)) {
            throw new UnsupportedOperationException(NO_FAIR_LOCK);
        }
        throw new UnsupportedOperationException(kind instanceof LockKind.Permits ? NO_SEMAPHORE : NO_READ_WRITE_LOCK);
    }

    /** @throws UnsupportedOperationException always, saying why */
    @Override
    public int availablePermits(String name, int permits) {
        throw new UnsupportedOperationException(NO_SEMAPHORE);
    }

    /**
     * No leader records on Redlock: elections work, each term a Redlock lease, but
     * {@code currentLeader()} throws an {@link UnsupportedOperationException} saying why (a record on
     * a majority of independent masters cannot be read back in order without a second quorum protocol).
     */
    @Override
    public LeaderRecords leaderRecords() {
        return new RedlockLeaderRecords();
    }

    List<RedlockNode> nodes() {
        return nodes;
    }

    int quorum() {
        return protocol.quorum();
    }

    /** Closes every node's connections, then Lettuce's client and event loops. */
    @Override
    public void close() {
        nodes.forEach(RedlockNode::close);
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
}
