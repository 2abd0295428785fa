package dev.leasehold.redis;

import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.ForwardingLockProtocol;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.redis.internal.RedisDeployment;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A lock kind's protocol whose acquires and renewals count only once enough replicas have them
 * ({@link LockOptions#withReplicaAck}): each granted acquire and each successful renewal is
 * followed by {@code WAIT replicas timeout} on the same connection, which covers every write that
 * connection sent before. The connection is this client's replica-ack connection (on a Cluster, its
 * connection to the lock's master), not the shared one: {@code WAIT} blocks the connection it is
 * sent on, and would stall every other caller.
 *
 * <p>Every grant passes the acknowledgement: a lock a release hands to a waiting fair lock
 * ({@link dev.leasehold.spi.Wake.Granted}) is taken by an acknowledged attempt too
 * ({@link HandoffAsRetry}), so it is refused and released like any grant with too few
 * acknowledgements.
 *
 * <p>Everything else, the {@link #kind()} included (the acknowledgement is not a kind of its own),
 * is the wrapped kind's. Releases are not acknowledged: a kept lock lost in a failover frees early,
 * which costs no safety.
 */
final class ReplicaAckProtocol extends ForwardingLockProtocol {

    private final RedisDeployment connection;
    private final LockOptions.ReplicaAck ack;

    /**
     * @param inner      the kind's protocol on the replica-ack connection
     * @param connection that connection
     */
    ReplicaAckProtocol(LockProtocol inner, RedisDeployment connection, LockOptions.ReplicaAck ack) {
        super(inner);
        this.connection = connection;
        this.ack = ack;
    }

    /** A grant without enough acknowledgements is released, then reported as a {@link LockUnavailableException}. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        return delegate().tryAcquire(request).thenCompose(attempt -> {
            if (!(attempt instanceof Attempt.Acquired)) {
                return CompletableFuture.completedFuture(attempt);
            }
            return acknowledged(request.name()).thenCompose(acks -> acks >= ack.replicas()
                    ? CompletableFuture.completedFuture(attempt)
                    : delegate().release(request.name(), request.holder()).<Attempt>handle((released, error) -> {
                        throw tooFew("the acquire of '" + request.name() + "'", acks, "it was released");
                    }));
        });
    }

    /** A renewal without enough acknowledgements fails, as a renewal the server did not answer. */
    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return delegate().renew(name, holder, ttl).thenCompose(extended -> !extended
                ? CompletableFuture.completedFuture(false)
                : acknowledged(name).thenApply(acks -> {
                    if (acks < ack.replicas()) {
                        throw tooFew("the renewal of '" + name + "'", acks, "it does not count");
                    }
                    return true;
                }));
    }

    private CompletableFuture<Long> acknowledged(String name) {
        return connection.waitForReplicas(name, ack.replicas(), ack.timeout()); // the name is the lock key
    }

    private LockUnavailableException tooFew(String operation, long acks, String consequence) {
        return new LockUnavailableException("Redis at " + describe() + ": " + operation + " was acknowledged by "
                + acks + " replica(s) within " + ack.timeout() + ", fewer than the " + ack.replicas()
                + " withReplicaAck asks for; " + consequence + ". Check the replicas' health and "
                + "INFO replication, or ask for fewer replicas",
                new NodeFailure(describe(), NodeFailure.Kind.ERROR, null));
    }

    /** A handoff wakes the waiter to an acknowledged attempt, never straight into a lease: see {@link HandoffAsRetry}. */
    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return HandoffAsRetry.of(delegate().subscribe(name, holder));
    }

    @Override
    public ReleaseSignal subscribeIfActive(String name, String holder) {
        return HandoffAsRetry.of(delegate().subscribeIfActive(name, holder));
    }
}
