package dev.leasehold.redis.internal;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The connections of one client to one Redis deployment: a single server (reached directly or
 * through Sentinel) or a Cluster. Every lock kind runs its scripts on {@link #commands()}; on a
 * Cluster, Lettuce routes each call to the master of its first key's slot and follows
 * {@code MOVED} and {@code ASK} redirections, so a script must only touch keys of one slot.
 */
public interface RedisDeployment extends AutoCloseable {

    /** Commands and scripts, multiplexed over the deployment's command connection(s). */
    RedisClusterAsyncCommands<String, String> commands();

    /** Where it is, without credentials. */
    String describe();

    /**
     * Which keys one script call may touch together: keys of equal groups may share a call. A
     * single server has one group; a Cluster one per hash slot.
     */
    int scriptGroup(String key);

    /** Whether the scripts must publish with {@code SPUBLISH} (waiters subscribe with {@code SSUBSCRIBE}). */
    boolean shardedPubSub();

    /**
     * Whether a release addresses a woken waiter on its client's own channel ({@code lib_wake.lua}),
     * so that one client hears it instead of every client that waits on the lock: only where a
     * script's {@code PUBSUB NUMSUB} counts every connection that listens, so the script can tell
     * that nobody listens there and publish on the lock's channel instead. True on one server
     * (directly or through Sentinel); false on a Cluster, where it counts one node's listeners only
     * (the subscriber may sit on another node, or on a replica of the shard).
     */
    boolean clientChannels();

    /** Opens the waiters' pub/sub connection. */
    PubSubLink.Opener pubSub();

    /** The Lettuce client's command timeout when Leasehold made the client and set it, else null. */
    Duration commandTimeout();

    /**
     * The same deployment over command connections of its own (one per master on a Cluster), for
     * commands that block their connection ({@code WAIT}); closing it closes only those connections.
     *
     * @throws dev.leasehold.LockUnavailableException if the connection cannot be opened
     */
    RedisDeployment dedicated();

    /**
     * Sends {@code WAIT replicas timeout} on the connection that carries this deployment's writes to
     * {@code key}'s master, so it covers every write sent there before, and returns how many
     * replicas acknowledged. On a Cluster that is the master the topology names for the key's slot;
     * a write that followed a redirection elsewhere is not covered, and reads as fewer acknowledgements.
     */
    CompletableFuture<Long> waitForReplicas(String key, int replicas, Duration timeout);

    /** Closes the connections, and the Lettuce client when Leasehold made it. */
    @Override
    void close();
}
